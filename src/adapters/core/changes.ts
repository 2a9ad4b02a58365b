// A person changed what they wrote: an edit or a deletion, on any surface that sends them. The
// runs decide what it means for the question (runs/intake/edits.ts, deletions.ts) before the
// platform's ack, as for a new message; what follows the ack is the surface deleting the bot's
// answer to a deleted question, where the settings say so.
import { IntakeUnavailableError } from "../../errors.js";
import type { Task } from "../../runs/api/task.js";
import type { CoreContext } from "./core-context.js";
import type { DeletionInput, EditInput } from "./inbound.js";
import type { AfterAck } from "./intake.js";

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Taken before the ack; a store that can't take it leaves a redelivering platform unacknowledged (it sends the edit again). */
export async function takeEdit<C, R>(ctx: CoreContext<C, R>, input: EditInput): Promise<AfterAck | undefined> {
  const task: Task = {
    origin: input.at.origin,
    text: input.text,
    ...(input.contextSource ? { contextSource: input.contextSource } : {}),
    ...(input.sentOrder ? { sentOrder: input.sentOrder } : {}),
  };
  try {
    const result = await ctx.service.edit({ task, receipt: input.receipt, editReceipt: input.editReceipt, addsMention: input.addsMention });
    ctx.logger.info({ receipt: input.receipt, result }, "a message was edited");
    return undefined;
  } catch (error) {
    return unavailable(ctx, input.editReceipt, error);
  }
}

/** Taken before the ack; the bot's answer goes after it. */
export async function takeDeletion<C, R>(ctx: CoreContext<C, R>, input: DeletionInput): Promise<AfterAck | undefined> {
  try {
    const result = await ctx.service.deleteQuestion({ surface: ctx.surface.name, receipt: input.receipt });
    ctx.logger.info({ receipt: input.receipt, result: result.kind }, "a message was deleted");
    if (result.kind !== "answered" || !ctx.surface.deleteAnswer) return undefined;
    const { origin, answer } = result;
    return () => ctx.surface.deleteAnswer!(origin, answer);
  } catch (error) {
    return unavailable(ctx, `deleted:${input.receipt}`, error);
  }
}

function unavailable<C, R>(ctx: CoreContext<C, R>, receipt: string, error: unknown): undefined {
  if (ctx.surface.redelivers) {
    ctx.logger.error({ err: error, receipt }, "could not take an edit or a deletion; the platform is to deliver it again");
    throw error instanceof IntakeUnavailableError ? error : new IntakeUnavailableError(receipt, reasonOf(error));
  }
  ctx.logger.error({ err: error, receipt }, "could not take an edit or a deletion; it is lost");
  return undefined;
}
