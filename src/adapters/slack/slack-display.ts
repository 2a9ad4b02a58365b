// How one run looks in Slack (the core's run view drives it): a status line while it works, the
// live step trace in the thread (streamed task list, or an edited trace message where streaming
// is not available) with the Stop button, what the model writes streamed into the thread as it
// comes (answer-messages.ts), then the answer (with the guard line when a guard fired, and
// 👍 / 👎) or the approval message.
import { postFormCard } from "./form-message.js";
import { findPostedAnswer } from "./posted-answer.js";
import type { webApi } from "@slack/bolt";
import type { PendingApproval, RunOutcome } from "../../contracts/types.js";
import { renderTrace } from "../../contracts/trace-text.js";
import type { Logger } from "../../logger.js";
import { taskLines, type StatusCard, type TaskUpdate } from "../core/cards.js";
import type { RunDisplay } from "../core/surface.js";
import { RUN_FAILED } from "../core/texts.js";
import { isOpenMessage, isStreamThread, type StreamThread } from "../core/unfinished-messages.js";
import { approvalBlocks, approvalText } from "./approval-message.js";
import { createAnswerMessages } from "./answer-messages.js";
import { endLeftOpen, endUnrecordedStreams, INTERRUPTED_NOTES, type EndNotes } from "./left-open.js";
import { feedbackBlocks } from "./feedback-buttons.js";
import { createMessageTrace, type MessageTrace } from "./message-trace.js";
import { describeSlackError } from "./slack-api.js";
import type { ThreadPlace } from "./slack-place.js";
import type { SlackPosts, Where } from "./slack-posts.js";
import { uploadFiles } from "./slack-files.js";
import { neutraliseMentions, slackFormat } from "./slack-text.js";
import { createStatusLine, createStopControl } from "./slack-working.js";
import type { MessageRef } from "./slack-refs.js";
import { createStreamTrace, type StreamLimits, type StreamTrace } from "./stream-trace.js";

/** How a trace stream Slack ended is left: its steps go on in the trace message. */
const MOVED_ON: EndNotes = { ...INTERRUPTED_NOTES, trace: "_(the steps go on below)_" };

/** The whole trace of a finished run; the trace message spreads it over as many messages as it needs. */
const FINAL_TRACE_CHARS = 40_000;

/** What a paused run waits for: a person's decision, or its requester connecting a server. */
const pausedHeading = (pending: PendingApproval) =>
  pending.connect ? `Waiting for <@${pending.requester.id}> to connect ${pending.connect.server}.` : "Waiting for approval.";

export interface SlackDisplayDeps {
  readonly client: webApi.WebClient;
  readonly posts: SlackPosts;
  readonly logger: Logger;
  readonly streamLimits: StreamLimits;
  readonly now: () => number;
}

/** The status line, or undefined to keep the one shown. */
export function statusLine(status: StatusCard): string | undefined {
  switch (status.kind) {
    case "working":
    case "thinking":
      return status.kind === "working" || status.step === 1 ? "is thinking…" : `is thinking (step ${status.step})…`;
    case "running":
      return `is running ${neutraliseMentions(status.tool.slice(0, 40))}…`;
    case "tidying":
      return "is tidying up its notes…";
    case "summarising":
      return "is writing a summary…";
    case "waiting":
      return "is waiting for approval…";
    case "asking":
      return `is waiting for an answer to the form of ${neutraliseMentions(status.server.slice(0, 40))}…`;
    case "ran":
      return undefined;
  }
}

export function createSlackDisplay(deps: SlackDisplayDeps, place: ThreadPlace): RunDisplay<MessageRef> {
  const { client, posts, logger } = deps;
  const traceTarget = { channel: place.channel, threadTs: place.traceThreadTs };
  const replyTarget: Where = { channel: place.channel, threadTs: place.replyThreadTs };
  const status = createStatusLine(client, traceTarget, logger);
  const stopControl = createStopControl(client, posts, traceTarget, logger);
  /** What each task looked like when it was last streamed. */
  const streamed = new Map<string, string>();
  let tasks: readonly TaskUpdate[] = [];
  let stream: StreamTrace | undefined;
  let fallback: MessageTrace | undefined;
  let runId: string | undefined;
  const requester = { team: place.requesterTeam ?? place.team, user: place.requester };
  // A stream Slack refused to start (the workspace, the channel, the person) is not tried again in
  // this run, whether the trace or the model's text asked first.
  const refused = { streaming: false };
  /** Where this run's streams start: the trace's thread, and the answer's when it is another. */
  const streamThreads: StreamThread[] = [
    { channel: place.channel, thread: place.traceThreadTs },
    ...(place.replyThreadTs === undefined || place.replyThreadTs === place.traceThreadTs
      ? []
      : [{ channel: place.channel, thread: place.replyThreadTs }]),
  ];
  const answers = createAnswerMessages({
    client,
    posts,
    logger,
    where: replyTarget,
    recipient: replyTarget.threadTs === undefined ? undefined : requester,
    limits: deps.streamLimits,
    now: deps.now,
    refused,
  });

  /** The trace message carries the Stop button, so the separate one goes. */
  function showFallback(): void {
    fallback ??= createMessageTrace(client, traceTarget, logger);
    fallback.show("Working on it…", taskLines(tasks), runId);
    if (runId !== undefined) void stopControl.close();
  }

  /** A refusal is about this run's stream (a channel, a person, a limit), so only this run posts and edits instead. */
  function onStreamFailure(error: unknown, ts: string | undefined): void {
    logger.info(
      { err: error, channel: place.channel },
      `streaming the trace failed (${describeSlackError(error)}); this run uses a trace message`,
    );
    if (ts === undefined) refused.streaming = true;
    // The stream it left is ended, not left looking as if it went on.
    if (ts !== undefined) void endLeftOpen(client, logger, [{ channel: place.channel, id: ts, kind: "trace", streaming: true }], MOVED_ON);
    showFallback();
  }

  /** Streams the tasks that changed since they were last streamed (or shows them in the trace message). */
  async function showTasks(now: readonly TaskUpdate[]): Promise<void> {
    tasks = now;
    if (fallback || (refused.streaming && stream === undefined)) return showFallback();
    const changed = tasks.filter((task) => streamed.get(task.id) !== JSON.stringify(task));
    if (changed.length === 0) return;
    for (const task of changed) streamed.set(task.id, JSON.stringify(task));
    stream ??= createStreamTrace(client, { ...traceTarget, ...requester }, logger, deps.streamLimits, onStreamFailure, deps.now);
    await stream.append(changed);
  }

  async function closeTrace(outcome: RunOutcome): Promise<void> {
    await stream?.finish();
    if (!fallback) return;
    const heading = outcome.status === "paused" ? `${pausedHeading(outcome.pending)} Steps so far:` : `Steps (${outcome.steps.length}):`;
    fallback.show(heading, renderTrace(outcome.steps, { maxChars: FINAL_TRACE_CHARS }));
    await fallback.flush();
  }

  return {
    progressIntervalMs: deps.streamLimits.intervalMs,
    // The trace and the model's text stream into messages of their own.
    firstsAtOnce: true,
    begin: () => status.set("is thinking…"),
    async progress(progress) {
      const line = statusLine(progress.status);
      if (line) status.set(line);
      if (progress.runId !== undefined && runId === undefined) {
        runId = progress.runId;
        if (!fallback) stopControl.show(runId);
      }
      // The model's words before a tool call come first, so they sit above the trace of that call.
      await answers.show(progress.draft);
      await showTasks(progress.tasks);
    },
    async endProgress(outcome, last) {
      await answers.show(last.draft);
      await showTasks(last.tasks);
      await status.stop();
      await stopControl.close();
      await closeTrace(outcome);
    },
    async answer(card) {
      const shown = await answers.answer(card);
      if (shown === undefined) return undefined;
      if (card.files && !(await uploadFiles(client, logger, replyTarget, card.files))) {
        const names = card.files.map((file) => slackFormat.code(file.name)).join(", ");
        const note = { text: `I could not attach ${names}: Slack refused the upload.` };
        await posts.post(replyTarget, note, { level: "warn", message: "could not say that the files are missing" }, false);
      }
      // Feedback is welcome, not required: tried once.
      if (!shown.withFeedback) {
        const votes = { text: "Was this answer helpful?", blocks: feedbackBlocks(card.runId, card.stop) };
        await posts.post(replyTarget, votes, { level: "warn", message: "could not show the feedback buttons" }, false);
      }
      return { messageId: shown.ts };
    },
    async approval({ pending, deciders }) {
      const message = { text: approvalText(pending), blocks: approvalBlocks(pending, deciders) };
      const fields = { runId: pending.runId, tool: pending.tool };
      const ts = await posts.post(replyTarget, message, { level: "error", message: "could not post the approval message", fields });
      if (ts === undefined) return undefined;
      const { team, enterprise, orgInstall } = place;
      return { channel: replyTarget.channel, ts, team, ...(enterprise ? { enterprise } : {}), ...(orgInstall ? { orgInstall } : {}) };
    },
    form: (form) => postFormCard(client, logger, place, form),
    async findAnswer(id) {
      const ts = await findPostedAnswer(client, logger, replyTarget, id);
      return ts === undefined ? undefined : { messageId: ts };
    },
    unfinished() {
      const trace = stream?.streaming();
      return [
        ...answers.unfinished(),
        ...(trace === undefined ? [] : [{ channel: traceTarget.channel, id: trace, kind: "trace" as const, streaming: true }]),
        // A stream Slack refused is not started again in this run.
        ...(refused.streaming ? [] : streamThreads),
      ];
    },
    async settleUnfinished(left) {
      const messages = left.filter(isOpenMessage);
      await endLeftOpen(client, logger, messages, INTERRUPTED_NOTES);
      // Whether it was the text or the trace that streamed there, it ends as interrupted.
      const named = new Set(messages.map((message) => message.id));
      await endUnrecordedStreams(client, logger, left.filter(isStreamThread), named, INTERRUPTED_NOTES.trace);
    },
    async failure() {
      await status.stop();
      await stopControl.close();
      await stream?.finish();
      fallback?.show("Steps so far:", taskLines(tasks));
      await fallback?.flush();
      await posts.post(replyTarget, { text: RUN_FAILED }, { level: "error", message: "could not post a reply" });
    },
  };
}
