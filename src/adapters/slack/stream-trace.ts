// The live step trace as Slack's chat streaming task list (chat.startStream / appendStream /
// stopStream through the client's chatStream helper): one task per tool call, updated in
// place. Updates are sent at most once per interval, merged by task (the newest state of each
// wins). The first failure hands over to the fallback (a trace message) and nothing more is
// streamed.
import type { webApi } from "@slack/bolt";
import type { Logger } from "../../logger.js";
import type { TaskUpdate } from "./task-updates.js";
import { createThrottledWriter } from "../throttled-writer.js";

const STREAM_INTERVAL_MS = 500;

export interface StreamTarget {
  readonly channel: string;
  readonly threadTs: string;
  readonly team: string;
  readonly user: string;
}

export interface StreamTrace {
  push(updates: readonly TaskUpdate[]): void;
  /** Sends what is left and closes the stream. Never throws. */
  finish(): Promise<void>;
}

type Batch = ReadonlyMap<string, TaskUpdate>;

const mergeBatches = (waiting: Batch, next: Batch): Batch => new Map([...waiting, ...next]);

export function createStreamTrace(
  client: webApi.WebClient,
  target: StreamTarget,
  logger: Logger,
  /** Called once, with the error, when streaming fails; nothing is streamed afterwards. */
  onFailure: (error: unknown) => void,
): StreamTrace {
  const streamer = client.chatStream({
    channel: target.channel,
    thread_ts: target.threadTs,
    recipient_team_id: target.team,
    recipient_user_id: target.user,
    task_display_mode: "timeline",
  });
  let failed = false;
  const throttle = createThrottledWriter<Batch>(
    async (batch) => {
      if (failed) return;
      await streamer.append({ chunks: [...batch.values()].map((update) => ({ type: "task_update" as const, ...update })) });
    },
    {
      minIntervalMs: STREAM_INTERVAL_MS,
      merge: mergeBatches,
      onError: (error) => {
        failed = true;
        onFailure(error);
      },
    },
  );

  return {
    push(updates) {
      if (!failed) throttle.push(new Map(updates.map((update) => [update.id, update])));
    },
    async finish() {
      await throttle.flush();
      if (failed || streamer.ts === undefined) return;
      try {
        await streamer.stop();
      } catch (error) {
        logger.warn({ err: error, channel: target.channel }, "could not close the streamed trace");
      }
    },
  };
}
