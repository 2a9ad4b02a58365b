// The live step trace as Slack's chat streaming task list (chat.startStream / appendStream /
// stopStream through the client's chatStream helper): one task per tool call, updated in
// place. The run view sends updates at most once per interval, one batch at a time. Slack stops
// taking appends a few minutes after a stream starts (message_not_in_streaming_state) and refuses
// a message that grew too large (msg_too_long), so a stream nearing either limit is closed and the
// trace continues in a new streamed message in the same thread. The first failure hands over to
// the caller's fallback (a trace message, for this run only) and nothing more is streamed.
import type { webApi } from "@slack/bolt";
import type { Logger } from "../../logger.js";
import { attempt } from "../core/attempt.js";
import type { TaskUpdate } from "../core/cards.js";
import { neutraliseMentions } from "./slack-text.js";

export interface StreamLimits {
  /** A stream older than this is closed and the trace continues in a new one. */
  readonly maxAgeMs: number;
  /** The characters (chunk JSON) one streamed message may take before it rotates. */
  readonly maxChars: number;
  /** Updates are sent at most once per interval. */
  readonly intervalMs: number;
}

/** Slack ends a stream after about 5 minutes and a message past ~12,000 characters; stay well inside, and append at most once a second. */
export const DEFAULT_STREAM_LIMITS: StreamLimits = { maxAgeMs: 4 * 60_000, maxChars: 9_000, intervalMs: 1_000 };

/** Pure: whether the next write must go into a new message, given what the current one holds. */
function mustRotate(state: { readonly ageMs: number; readonly chars: number }, nextChars: number, limits: StreamLimits): boolean {
  if (state.chars === 0) return false;
  return state.ageMs + limits.intervalMs >= limits.maxAgeMs || state.chars + nextChars > limits.maxChars;
}

export interface StreamTarget {
  readonly channel: string;
  readonly threadTs: string;
  /** The requester's own workspace: Slack refuses a stream addressed to another one (Slack Connect). */
  readonly team: string;
  readonly user: string;
}

export interface StreamTrace {
  /** Never called twice at the same time. Never throws. */
  append(updates: readonly TaskUpdate[]): Promise<void>;
  /** Closes the stream. Never throws. */
  finish(): Promise<void>;
  /** The ts of the message streaming now, if one is. */
  streaming(): string | undefined;
}

export const streamChunk = (update: TaskUpdate) => ({
  type: "task_update" as const,
  id: update.id,
  title: neutraliseMentions(update.title),
  status: update.status,
  ...(update.details ? { details: neutraliseMentions(update.details) } : {}),
  ...(update.output ? { output: neutraliseMentions(update.output) } : {}),
});

export function createStreamTrace(
  client: webApi.WebClient,
  target: StreamTarget,
  logger: Logger,
  limits: StreamLimits,
  /** Called once, with the error and the message it was streaming (if one started), when streaming fails; nothing is streamed afterwards. */
  onFailure: (error: unknown, ts: string | undefined) => void,
  now: () => number = Date.now,
): StreamTrace {
  const open = () =>
    client.chatStream({
      channel: target.channel,
      thread_ts: target.threadTs,
      recipient_team_id: target.team,
      recipient_user_id: target.user,
      task_display_mode: "timeline",
    });
  let streamer = open();
  let startedAt = 0;
  let chars = 0;
  let failed = false;
  let finished = false;

  async function close(current: ReturnType<typeof open>): Promise<void> {
    if (current.ts === undefined) return;
    await attempt(logger, { level: "warn", message: "could not close the streamed trace", fields: { channel: target.channel } }, () =>
      current.stop(),
    );
  }

  return {
    async append(updates) {
      if (failed || updates.length === 0) return;
      try {
        const chunks = updates.map(streamChunk);
        const size = JSON.stringify(chunks).length;
        if (mustRotate({ ageMs: now() - startedAt, chars }, size, limits)) {
          const full = streamer;
          streamer = open();
          chars = 0;
          await close(full);
        }
        if (chars === 0) startedAt = now();
        await streamer.append({ chunks });
        chars += size;
      } catch (error) {
        failed = true;
        onFailure(error, streamer.ts);
      }
    },
    async finish() {
      finished = true;
      if (!failed) await close(streamer);
    },
    streaming: () => (failed || finished ? undefined : streamer.ts),
  };
}
