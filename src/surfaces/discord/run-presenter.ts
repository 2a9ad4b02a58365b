// Shows a run on Discord from its origin alone, so the worker that runs it need not be the
// process that received the /ask, the mention or the click: an /ask's deferred reply is edited
// through its interaction webhook while the token lives (15 minutes), a run resumed by a click
// answers in follow-ups of that click, anything else (a mention, an old token) with channel
// messages through the bot's own token.
import type { REST } from "discord.js";
import type { RunPresenter } from "../../runs/service.js";
import type { TaskOrigin } from "../../agent/types.js";
import { placeChannelKind } from "./conversation.js";
import { channelSurface, webhookSurface, type ReplySurface } from "./reply-surface.js";
import { createRunView, type AdapterContext } from "./run-view.js";

/** Discord accepts an interaction token for 15 minutes; a margin leaves time for the answer itself. */
const INTERACTION_TOKEN_MS = 14 * 60_000;

export function surfaceFor(context: AdapterContext, rest: REST, origin: TaskOrigin, now: number): ReplySurface {
  const { channel, message, application, interaction_token: token, interaction_at: at, reply_via: via } = origin.place;
  if (!channel) throw new Error("the run's origin has no Discord channel");
  if (application && token && now - Number(at) < INTERACTION_TOKEN_MS)
    return webhookSurface(rest, application, token, via === "followup" ? "followup" : "original");
  return channelSurface(context.api, channel, message);
}

/** Builds the presenter the runner uses for Discord runs; it shows "working" as soon as the run starts. */
export function discordPresenter(context: AdapterContext, rest: REST): (origin: TaskOrigin, question: string) => RunPresenter {
  return (origin, question) => {
    const view = createRunView(context, surfaceFor(context, rest, origin, context.clock()), {
      channelKind: placeChannelKind(origin),
      question,
    });
    view.begin();
    return {
      sink: view.sink,
      finish: (outcome) => view.finish(outcome),
      async fail(error) {
        context.logger.error({ err: error, conversationKey: origin.conversationKey }, "the agent service failed a run");
        await view.fail();
      },
    };
  };
}
