// A reply in a thread without a mention: people answer the bot in its thread as they would one
// another, so a reply where the bot works (core/bot-threads.ts) is a message for it, unless the
// channel's settings keep the old rule (`threadFollowUps: mention`). Everything else about it
// (commands, governance, limits) is as for any message: it goes on to core/intake.ts.
import { IntakeUnavailableError } from "../../errors.js";
import { isBotThread } from "./bot-threads.js";
import type { CoreContext } from "./core-context.js";
import type { FollowUpInput } from "./inbound.js";
import { takeMessage, type AfterAck } from "./intake.js";

/** Taken as a message when it is for the bot; undefined (nothing follows) when it is not. Rejects as takeMessage does. */
export async function takeFollowUp<C, R>(ctx: CoreContext<C, R>, input: FollowUpInput): Promise<AfterAck | undefined> {
  const { origin } = input.at;
  // Without Discord's message content intent a reply arrives empty: nothing was said to the bot.
  if (input.text === "" && (input.files ?? []).length === 0) return undefined;
  if (!ctx.governance.runPolicy.runSettings(origin).threadFollowUps) return undefined;
  if (!input.botThread && !(await botWorksIn(ctx, input))) return undefined;
  return takeMessage(ctx, input);
}

/** Whether the bot works in the reply's thread. A store that can't say: a platform that delivers again is not acknowledged. */
async function botWorksIn<C, R>(ctx: CoreContext<C, R>, input: FollowUpInput): Promise<boolean> {
  try {
    return await isBotThread(ctx.store, input.at.origin.conversationKey);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (ctx.surface.redelivers) throw new IntakeUnavailableError(input.receipt, reason);
    ctx.logger.error({ err: error, receipt: input.receipt }, "could not tell whether a reply in a thread is for the bot; it is not taken");
    return false;
  }
}
