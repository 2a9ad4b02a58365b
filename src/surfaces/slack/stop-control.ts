// The Stop button of a Slack run. A run whose trace is an edited message (post-and-edit) carries
// the button in that message (see message-trace.ts). A streamed run cannot: Slack takes blocks
// only as chunks appended to the stream, which stay in it for good and push later tasks below
// them, or at chat.stopStream, when the run is over; and a run that calls no tool never opens a
// stream. So until the trace is a message, the button is one small message in the run's thread,
// posted when the run's first event names it and deleted when the run ends (or when the trace
// message takes it over). Its clicks go to the core's Stop flow (core/clicks.ts).
import type { webApi } from "@slack/bolt";
import type { Logger } from "../../logger.js";

export const STOP_ACTION = "agent_run_stop";
const WORKING_TEXT = ":hourglass_flowing_sand: Working on it. *Stop* ends the run now, with a summary of what it found.";

export function stopButton(runId: string) {
  return { type: "button" as const, action_id: STOP_ACTION, text: { type: "plain_text" as const, text: "Stop" }, value: runId };
}

export function stopBlocks(runId: string) {
  return [{ type: "section" as const, text: { type: "mrkdwn" as const, text: WORKING_TEXT }, accessory: stopButton(runId) }];
}

export interface StopControl {
  /** Shows the button for this run (once; later calls do nothing). Returns at once. */
  show(runId: string): void;
  /** Removes the button; later calls of show do nothing. Never throws. */
  close(): Promise<void>;
}

export function createStopControl(
  client: webApi.WebClient,
  target: { readonly channel: string; readonly threadTs: string },
  logger: Logger,
): StopControl {
  let posting: Promise<string | undefined> | undefined;
  let closed = false;
  return {
    show(runId) {
      if (closed) return;
      posting ??= client.chat
        .postMessage({ channel: target.channel, thread_ts: target.threadTs, text: WORKING_TEXT, blocks: stopBlocks(runId) })
        .then((posted) => (typeof posted.ts === "string" ? posted.ts : undefined))
        .catch((error: unknown) => {
          logger.warn({ err: error, channel: target.channel }, "could not show the Stop button");
          return undefined;
        });
    },
    async close() {
      if (closed) return;
      closed = true;
      const ts = await posting;
      if (ts === undefined) return;
      await client.chat
        .delete({ channel: target.channel, ts })
        .catch((error: unknown) => logger.warn({ err: error, channel: target.channel }, "could not remove the Stop button"));
    },
  };
}
