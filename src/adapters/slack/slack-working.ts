// What a Slack run shows while it works, besides its trace. The "is thinking…" line under the
// thread (assistant.threads.setStatus), changed at most once per interval: Slack removes it by
// itself when the bot posts in the thread, so it only has to stop before the reply goes out; the
// first refusal (e.g. an app without the agent features) switches it off for the run. And the
// Stop button: a run whose trace is an edited message carries it in that message
// (message-trace.ts); a streamed run cannot (Slack takes blocks only as chunks appended to the
// stream, which stay in it and push later tasks below them, or at chat.stopStream, when the run
// is over; and a run that calls no tool opens no stream), so until the trace is a message the
// button is one small message in the run's thread, posted when the run's first event names it and
// deleted when the run ends or the trace message takes it over. Its clicks go to the core's Stop
// flow (core/clicks.ts).
import type { webApi } from "@slack/bolt";
import type { Logger } from "../../logger.js";
import { attempt } from "../core/attempt.js";
import { createThrottledWriter } from "../core/throttled-writer.js";
import type { SlackPosts } from "./slack-posts.js";

export const STOP_ACTION = "agent_run_stop";
const WORKING_TEXT = ":hourglass_flowing_sand: Working on it. *Stop* ends the run now, with a summary of what it found.";
const STATUS_INTERVAL_MS = 1_000;

type Thread = { readonly channel: string; readonly threadTs: string };

export function stopButton(runId: string) {
  return { type: "button" as const, action_id: STOP_ACTION, text: { type: "plain_text" as const, text: "Stop" }, value: runId };
}

export interface StatusLine {
  set(status: string): void;
  /** Drops statuses not sent yet and waits for one being sent. Never throws. */
  stop(): Promise<void>;
}

export function createStatusLine(client: webApi.WebClient, place: Thread, logger: Logger): StatusLine {
  let shown = "";
  let disabled = false;
  const throttle = createThrottledWriter<string>(
    async (status) => {
      if (disabled || status === shown) return;
      await client.assistant.threads.setStatus({ channel_id: place.channel, thread_ts: place.threadTs, status });
      shown = status;
    },
    {
      minIntervalMs: STATUS_INTERVAL_MS,
      onError: (error) => {
        disabled = true;
        logger.debug({ err: error, channel: place.channel }, "status line not available");
      },
    },
  );
  return {
    set(status) {
      if (!disabled) throttle.push(status);
    },
    stop: () => throttle.close(),
  };
}

export interface StopControl {
  /** Shows the button for this run (once; later calls do nothing). Returns at once. */
  show(runId: string): void;
  /** Removes the button; later calls of show do nothing. Never throws. */
  close(): Promise<void>;
}

export function createStopControl(client: webApi.WebClient, posts: SlackPosts, target: Thread, logger: Logger): StopControl {
  let posting: Promise<string | undefined> | undefined;
  let closed = false;
  return {
    show(runId) {
      if (closed) return;
      const blocks = [{ type: "section" as const, text: { type: "mrkdwn" as const, text: WORKING_TEXT }, accessory: stopButton(runId) }];
      posting ??= posts.post(target, { text: WORKING_TEXT, blocks }, { level: "warn", message: "could not show the Stop button" }, false);
    },
    async close() {
      if (closed) return;
      closed = true;
      const ts = await posting;
      if (ts === undefined) return;
      const failure = { level: "warn", message: "could not remove the Stop button", fields: { channel: target.channel } } as const;
      await attempt(logger, failure, () => client.chat.delete({ channel: target.channel, ts }));
    },
  };
}
