// Renders one run on Discord: progress while it works (the main message edited at most
// once per interval), then the outcome: the answer (split to fit, with the guard line when
// a guard stopped it) and its step trace in a thread on the answer, or the approval
// request with its buttons.
import { splitText } from "../split-text.js";
import { createThrottledWriter } from "../throttled-writer.js";
import { renderTrace } from "../../agent/trace.js";
import type { Logger } from "../../logger.js";
import type { AgentService, PostedAnswer, Task } from "../../runs/service.js";
import type { GovernanceCommands } from "../../governance/governance.js";
import type { EventSink, RunOutcome, StepRecord } from "../../agent/types.js";
import { approvalButtons } from "./approval-buttons.js";
import { stopButtons } from "./stop-button.js";
import { feedbackButtons } from "./feedback.js";
import type { ApprovalMessages } from "./approval-messages.js";
import type { ChannelApi, SentMessage } from "./channel-api.js";
import type { ChannelKind } from "./conversation.js";
import {
  answerText,
  approvalText,
  FAILURE_TEXT,
  MAX_MESSAGE_CHARS,
  progressText,
  threadName,
  waitingText,
  WORKING_TEXT,
  type Deciders,
} from "./messages.js";
import type { ReplySurface } from "./reply-surface.js";

/** What every handler of the adapter shares. */
export interface AdapterContext {
  readonly service: AgentService;
  readonly api: ChannelApi;
  readonly approvals: ApprovalMessages;
  readonly deciders: Deciders;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly progressIntervalMs: number;
  /** The settings file's `/audit` and `/settings`; absent: not set up. */
  readonly governance?: GovernanceCommands;
}

export interface RunView {
  /** Feed it the run's events. */
  readonly sink: EventSink;
  /** Shows that work started (for surfaces with nothing on screen yet). */
  begin(): void;
  /** Shows the outcome (an answer resolves with its first message). An answer that cannot be posted is logged in full, not thrown. */
  finish(outcome: RunOutcome): Promise<PostedAnswer | undefined>;
  /** Tells people, in general words, that the run failed; the caller logs the detail. */
  fail(): Promise<void>;
}

/** The trace is split into at most a few messages; renderTrace keeps its first and last steps. */
const TRACE_CHARS = 3 * MAX_MESSAGE_CHARS;

export function createRunView(
  context: AdapterContext,
  surface: ReplySurface,
  where: { channelKind: ChannelKind; question: string },
): RunView {
  const { api, logger } = context;
  /** Known from the run's first event: the progress message then carries the Stop button. */
  let runId: string | undefined;
  const status = createThrottledWriter<string>(
    async (text) => void (await surface.setMain({ content: text, ...(runId ? { components: stopButtons(runId) } : {}) })),
    {
      minIntervalMs: context.progressIntervalMs,
      now: context.clock,
      onError: (error) => logger.warn({ err: error }, "could not update the progress message"),
    },
  );

  async function postTrace(answer: SentMessage, steps: readonly StepRecord[]): Promise<void> {
    if (steps.length === 0) return;
    const trace = renderTrace(steps, { maxChars: TRACE_CHARS });
    if (where.channelKind === "text") {
      try {
        const threadId = await api.startThread(answer, threadName(where.question));
        for (const part of splitText(trace, MAX_MESSAGE_CHARS)) await api.send(threadId, { content: part });
        return;
      } catch (error) {
        logger.warn({ err: error }, "could not post the trace in a thread; posting it below the answer");
      }
    }
    for (const part of splitText(`Steps:\n${trace}`, MAX_MESSAGE_CHARS)) await surface.post({ content: part });
  }

  return {
    sink(event) {
      runId ??= event.runId;
      const text = progressText(event);
      if (text) status.push(text);
    },
    begin() {
      status.push(WORKING_TEXT);
    },
    async finish(outcome) {
      await status.close();
      if (outcome.status === "paused") {
        await surface.setMain({ content: waitingText(outcome.pending), components: [] });
        const request = await surface.post({
          content: approvalText(outcome.pending, context.deciders),
          components: approvalButtons(outcome.pending.runId, outcome.pending.callId),
        });
        await context.approvals.remember(outcome.pending, { ...request, question: where.question });
        return undefined;
      }
      const text = answerText(outcome);
      let answer: SentMessage;
      try {
        const [first, ...rest] = splitText(text, MAX_MESSAGE_CHARS);
        // 👍 / 👎 go on the answer's last message.
        const votes = feedbackButtons(outcome.runId, outcome.stop);
        answer = await surface.setMain({ content: first!, components: rest.length === 0 ? votes : [] });
        for (const [index, part] of rest.entries())
          await surface.post({ content: part, ...(index === rest.length - 1 ? { components: votes } : {}) });
      } catch (error) {
        logger.error({ err: error, answer: text }, "could not post the answer; it is in this log line");
        return undefined;
      }
      await postTrace(answer, outcome.steps);
      return { messageId: answer.messageId };
    },
    async fail() {
      await status.close();
      await surface.setMain({ content: FAILURE_TEXT, components: [] });
    },
  };
}

/** Records the message under `receipt` and queues its run; a store failure becomes a plain message, never silence. */
export async function submitTask(context: AdapterContext, surface: ReplySurface, task: Task, receipt: string): Promise<void> {
  try {
    const submitted = await context.service.submit(task, receipt);
    if (submitted.kind === "duplicate")
      context.logger.info({ receipt, state: submitted.state }, "message already taken; ignoring the redelivery");
  } catch (error) {
    context.logger.error({ err: error, conversationKey: task.origin.conversationKey }, "could not record the message");
    await surface
      .setMain({ content: FAILURE_TEXT, components: [] })
      .catch((postError: unknown) => context.logger.error({ err: postError }, "could not say the message was not taken"));
  }
}
