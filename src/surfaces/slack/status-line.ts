// The "is thinking…" line under a thread (assistant.threads.setStatus), changed at most once
// per interval. Slack removes it by itself when the bot posts in the thread, so it is never
// cleared explicitly; it only has to stop before the reply goes out. A status is best effort:
// the first refusal (e.g. an app without the agent features) switches it off for the run.
import type { webApi } from "@slack/bolt";
import type { Logger } from "../../logger.js";
import { createThrottledWriter } from "../core/throttled-writer.js";

const STATUS_INTERVAL_MS = 1_000;

export interface StatusLine {
  set(status: string): void;
  /** Drops statuses not sent yet and waits for one being sent. Never throws. */
  stop(): Promise<void>;
}

export function createStatusLine(
  client: webApi.WebClient,
  place: { readonly channel: string; readonly threadTs: string },
  logger: Logger,
): StatusLine {
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
