// How one run looks in Slack: a status line while it works, the live step trace in the thread
// (streamed task list, or an edited trace message where streaming is not available), then
// the answer (with the guard line when a guard fired) or the approval message.
import type { webApi } from "@slack/bolt";
import type { EventSink, RunOutcome } from "../../agent/types.js";
import { renderTrace } from "../../agent/trace.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { Logger } from "../../logger.js";
import type { PostedAnswer } from "../../runs/service.js";
import { postApproval } from "./approval-posts.js";
import type { ThreadPlace } from "./incoming-message.js";
import { createMessageTrace, type MessageTrace } from "./message-trace.js";
import { postAnswer, postWithRetry, type ReplyTarget } from "./post-answer.js";
import { describeSlackError } from "./slack-api-error.js";
import { createStatusLine } from "./status-line.js";
import { createStopControl } from "./stop-control.js";
import { postFeedbackButtons } from "./feedback-buttons.js";
import type { StreamLimits } from "./stream-limits.js";
import { createStreamTrace, type StreamTrace } from "./stream-trace.js";
import { statusFor, taskLines, taskUpdatesFor, type TaskUpdate } from "./task-updates.js";

/** The whole trace of a finished run; the trace message spreads it over as many messages as it needs. */
const FINAL_TRACE_CHARS = 40_000;

export interface RunViewDeps {
  readonly client: webApi.WebClient;
  readonly store: KeyValueStore;
  readonly logger: Logger;
  readonly approvers: readonly string[];
  readonly streamLimits: StreamLimits;
  readonly now: () => number;
}

export interface RunView {
  /** Never throws. */
  readonly sink: EventSink;
  /** Shows the "thinking" status before the run starts. */
  begin(): void;
  /** Closes the trace, then posts the answer (resolving with its first message) or the approval message. Never throws. */
  finish(outcome: RunOutcome): Promise<PostedAnswer | undefined>;
  /** The run could not produce an outcome at all: tells the person so. Never throws. */
  fail(error: unknown): Promise<void>;
}

export function createRunView(deps: RunViewDeps, place: ThreadPlace): RunView {
  const { client, logger } = deps;
  const traceTarget = { channel: place.channel, threadTs: place.traceThreadTs };
  const replyTarget: ReplyTarget = { channel: place.channel, threadTs: place.replyThreadTs };
  const status = createStatusLine(client, traceTarget, logger);
  const stopControl = createStopControl(client, traceTarget, logger);
  const tasks = new Map<string, TaskUpdate>();
  let stream: StreamTrace | undefined;
  let fallback: MessageTrace | undefined;
  let runId: string | undefined;

  /** The trace message carries the Stop button, so the separate one goes. */
  function showFallback(): void {
    fallback ??= createMessageTrace(client, traceTarget, logger);
    fallback.show("Working on it…", taskLines(tasks.values()), runId);
    if (runId !== undefined) void stopControl.close();
  }

  /** A refusal is about this run's stream (a channel, a person, a limit), so only this run posts and edits instead. */
  function onStreamFailure(error: unknown): void {
    logger.info(
      { err: error, channel: place.channel },
      `streaming the trace failed (${describeSlackError(error)}); this run uses a trace message`,
    );
    showFallback();
  }

  function pushTasks(updates: readonly TaskUpdate[]): void {
    for (const update of updates) tasks.set(update.id, update);
    if (fallback) {
      showFallback();
      return;
    }
    stream ??= createStreamTrace(
      client,
      { ...traceTarget, team: place.requesterTeam ?? place.team, user: place.requester },
      logger,
      deps.streamLimits,
      onStreamFailure,
      deps.now,
    );
    stream.push(updates);
  }

  async function closeTrace(outcome: RunOutcome): Promise<void> {
    await stream?.finish();
    if (!fallback) return;
    const heading = outcome.status === "paused" ? "Waiting for approval. Steps so far:" : `Steps (${outcome.steps.length}):`;
    fallback.show(heading, renderTrace(outcome.steps, { maxChars: FINAL_TRACE_CHARS }));
    await fallback.flush();
  }

  return {
    sink(event) {
      try {
        if (event.type === "step_started" && runId === undefined) {
          runId = event.runId;
          if (fallback) showFallback();
          else stopControl.show(runId);
        }
        const line = statusFor(event);
        if (line) status.set(line);
        const updates = taskUpdatesFor(event);
        if (updates.length > 0) pushTasks(updates);
      } catch (error) {
        logger.warn({ err: error, event: event.type }, "could not show a step");
      }
    },
    begin() {
      status.set("is thinking…");
    },
    async finish(outcome) {
      await status.stop();
      await stopControl.close();
      await closeTrace(outcome);
      if (outcome.status === "paused") {
        await postApproval(deps, replyTarget, outcome.pending);
        return undefined;
      }
      const messageId = await postAnswer(client, replyTarget, outcome.answer, outcome.stop, logger);
      await postFeedbackButtons(client, replyTarget, outcome.runId, outcome.stop, logger);
      return messageId === undefined ? undefined : { messageId };
    },
    async fail(error) {
      logger.error({ err: error, channel: place.channel }, "the run failed without an answer");
      await status.stop();
      await stopControl.close();
      await stream?.finish();
      fallback?.show("Steps so far:", taskLines(tasks.values()));
      await fallback?.flush();
      const text = "Sorry, something went wrong on my side and I could not finish. Please ask again in a moment.";
      await postWithRetry(() =>
        client.chat.postMessage({
          channel: replyTarget.channel,
          ...(replyTarget.threadTs ? { thread_ts: replyTarget.threadTs } : {}),
          text,
        }),
      ).catch((postError: unknown) => logger.error({ err: postError }, "could not tell the person the run failed"));
    },
  };
}
