// How one run looks on Discord (the core's run view drives it): progress by editing the main
// message (with the Stop button once the run is known), what the model writes shown in it as it
// comes (draft-messages.ts), then the answer (split to fit, 👍 / 👎 on its last part) with its
// step trace in a thread on it, or the approval request with its buttons.
import { renderTrace } from "../../contracts/trace-text.js";
import type { Logger } from "../../logger.js";
import { EMPTY_DRAFT, type Draft } from "../core/answer-draft.js";
import type { UploadFile } from "../core/cards.js";
import type { RunDisplay } from "../core/surface.js";
import { splitText } from "../core/split-text.js";
import { RUN_FAILED } from "../core/texts.js";
import { approvalButtons, feedbackButtons, stopButtons } from "./buttons.js";
import type { ChannelApi, SentMessage } from "./channel-api.js";
import type { ChannelKind } from "./discord-place.js";
import { createDraftMessages } from "./draft-messages.js";
import { answerText, approvalText, discordFormat, MAX_MESSAGE_CHARS, progressText, threadName, waitingText } from "./messages.js";
import type { ReplySurface } from "./reply-surface.js";

/** Where an approval request was posted, and the request that led to it (for the trace thread's name after an expiry). */
export interface ApprovalMessage extends SentMessage {
  readonly question: string;
}

const QUESTION_CHARS = 200;
/** The trace is split into at most a few messages; renderTrace keeps its first and last steps. */
const TRACE_CHARS = 3 * MAX_MESSAGE_CHARS;

export interface DiscordDisplayDeps {
  readonly api: ChannelApi;
  readonly logger: Logger;
  readonly progressIntervalMs: number;
}

export function createDiscordDisplay(
  deps: DiscordDisplayDeps,
  surface: ReplySurface,
  where: { readonly channelKind: ChannelKind; readonly question: string },
): RunDisplay<ApprovalMessage> {
  const { api, logger } = deps;

  async function postTrace(answer: SentMessage, steps: Parameters<typeof renderTrace>[0]): Promise<void> {
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

  /** The answer in the main message, and in more below it past one message. */
  async function postAnswer(text: string, votes: ReturnType<typeof feedbackButtons>): Promise<SentMessage> {
    const [first, ...rest] = splitText(text, MAX_MESSAGE_CHARS);
    const answer = await surface.setMain({ content: first!, components: rest.length === 0 ? votes : [] });
    for (const [index, part] of rest.entries())
      await surface.post({ content: part, ...(index === rest.length - 1 ? { components: votes } : {}) });
    return answer;
  }

  /** One message per file, below the answer: one refused upload costs only itself, and is said. */
  async function postFiles(files: readonly UploadFile[]): Promise<void> {
    for (const file of files) {
      try {
        await surface.post({ content: "", files: [file] });
      } catch (error) {
        logger.error({ err: error, file: file.name }, "could not upload an answer's file");
        await surface
          .post({ content: `I could not attach ${discordFormat.code(file.name)}: Discord refused the upload.` })
          .catch((again: unknown) => logger.warn({ err: again }, "could not say that a file is missing"));
      }
    }
  }

  const drafts = createDraftMessages(surface);
  /** The draft as the run left it: the answer follows its text. */
  let draft: Draft = EMPTY_DRAFT;

  return {
    progressIntervalMs: deps.progressIntervalMs,
    async progress({ status, runId, draft: now }) {
      draft = now;
      const stop = runId ? stopButtons(runId) : [];
      if (await drafts.show(now, progressText(status), stop)) return;
      await surface.setMain({ content: progressText(status), ...(runId ? { components: stop } : {}) });
    },
    async endProgress(outcome, last) {
      draft = last.draft;
      if (outcome.status !== "paused") return;
      if (await drafts.show(last.draft, waitingText(outcome.pending), [])) return;
      await surface.setMain({ content: waitingText(outcome.pending), components: [] });
    },
    async answer(card) {
      // 👍 / 👎 go on the answer's last message.
      const votes = feedbackButtons(card.runId, card.stop);
      const answer = (await drafts.answer(draft, answerText(card), votes)) ?? (await postAnswer(answerText(card), votes));
      await postFiles(card.files ?? []);
      await postTrace(answer, card.steps).catch((error: unknown) => logger.warn({ err: error }, "could not post the trace"));
      return { messageId: answer.messageId };
    },
    async approval(card) {
      const request = await surface.post({
        content: approvalText(card.pending, card.deciders),
        components: approvalButtons(card.pending.runId, card.pending.callId),
      });
      return { ...request, question: where.question.slice(0, QUESTION_CHARS) };
    },
    async failure() {
      if (await drafts.show(draft, `⚠️ ${RUN_FAILED}`, [])) return;
      await surface.setMain({ content: `⚠️ ${RUN_FAILED}`, components: [] });
    },
  };
}
