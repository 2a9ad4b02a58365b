// Shows a run in Slack from its origin alone: the worker that runs it may not be the process
// that received the event (a restart, another bot process), so everything needed to find the
// thread is in the origin's place.
import type { RunPresenter } from "../../runs/service.js";
import type { TaskOrigin } from "../../agent/types.js";
import type { IncomingMessage, ThreadPlace } from "./incoming-message.js";
import { createRunView, type RunViewDeps } from "./run-view.js";

export function originOf(message: IncomingMessage): TaskOrigin {
  const { place } = message;
  return {
    surface: "slack",
    conversationKey: message.conversationKey,
    requester: { id: place.requester },
    place: {
      team: place.team,
      channel: place.channel,
      thread_ts: place.traceThreadTs,
      ...(place.replyThreadTs === undefined ? {} : { reply_thread_ts: place.replyThreadTs }),
      ...(place.requesterTeam === undefined ? {} : { requester_team: place.requesterTeam }),
    },
  };
}

/** The thread a run belongs to, or undefined when the origin is not a Slack place (damaged or foreign). */
export function placeOf(origin: TaskOrigin): ThreadPlace | undefined {
  const { team, channel, thread_ts: traceThreadTs, reply_thread_ts: replyThreadTs, requester_team: requesterTeam } = origin.place;
  if (!team || !channel || !traceThreadTs) return undefined;
  return {
    team,
    channel,
    traceThreadTs,
    requester: origin.requester.id,
    ...(replyThreadTs ? { replyThreadTs } : {}),
    ...(requesterTeam ? { requesterTeam } : {}),
  };
}

/** Builds the presenter the runner uses for Slack runs; it shows "thinking" as soon as the run starts. */
export function slackPresenter(deps: RunViewDeps): (origin: TaskOrigin) => RunPresenter {
  return (origin) => {
    const place = placeOf(origin);
    if (!place) throw new Error("the run's origin has no Slack thread");
    const view = createRunView(deps, place);
    view.begin();
    return { sink: view.sink, finish: (outcome) => view.finish(outcome), fail: (error) => view.fail(error) };
  };
}
