// What the model writes in a run, as Slack messages in the run's thread: each segment of the
// core's draft in messages of its own (segment-messages.ts), so the model's words before a tool
// call sit above the step trace that follows them, and the answer below it. The answer completes
// its segment's messages and ends with the guard line and 👍 / 👎 at the bottom of its last
// message, which carries the run's metadata (posted-answer.ts: a takeover finds the answer only
// once it is whole). Where nothing streamed, or Slack took none of it, the answer is posted whole.
import type { Draft } from "../core/answer-draft.js";
import type { AnswerCard } from "../core/cards.js";
import { splitText } from "../core/split-text.js";
import type { UnfinishedMessage } from "../core/unfinished-messages.js";
import { feedbackBlocks } from "./feedback-buttons.js";
import { answerMetadata } from "./posted-answer.js";
import { guardLineBlock, type SlackPosts } from "./slack-posts.js";
import { MESSAGE_MAX_CHARS, toSlackMrkdwn } from "./slack-text.js";
import { createSegmentMessages, type SegmentDeps, type SegmentMessages } from "./segment-messages.js";

export interface AnswerMessages {
  /** Shows the draft: each segment's text so far, a sealed one ended as it stands. Never throws. */
  show(draft: Draft): Promise<void>;
  /**
   * Shows the answer, completing the live segment when there is one, with the guard line and the run's metadata. Its
   * first message's ts, and whether 👍 / 👎 went with it; undefined when Slack took none of it (logged in full).
   */
  answer(card: AnswerCard): Promise<{ readonly ts: string; readonly withFeedback: boolean } | undefined>;
  unfinished(): UnfinishedMessage[];
}

export type AnswerMessagesDeps = SegmentDeps & { readonly posts: SlackPosts };

export function createAnswerMessages(deps: AnswerMessagesDeps): AnswerMessages {
  const { posts, where } = deps;
  const segmentDeps: SegmentDeps = deps;
  const segments = new Map<number, SegmentMessages>();
  const ended = new Set<number>();
  /** The step of the segment still being written, when one shows. */
  let live: number | undefined;

  const segmentOf = (step: number) => {
    const segment = segments.get(step) ?? createSegmentMessages(segmentDeps);
    segments.set(step, segment);
    return segment;
  };

  /** An aside Slack took none of: posted whole once it is final. */
  async function postWhole(text: string): Promise<void> {
    for (const part of splitText(toSlackMrkdwn(text), MESSAGE_MAX_CHARS))
      await posts.post(
        where,
        { text: part, unfurl: false },
        { level: "warn", message: "could not post the model's words before a tool call" },
      );
  }

  return {
    async show(draft) {
      for (const { step, text, sealed } of draft.segments) {
        if (ended.has(step) || (text === "" && !segments.has(step))) continue;
        if (!sealed) {
          live = step;
          await segmentOf(step).show(text);
          continue;
        }
        ended.add(step);
        if (live === step) live = undefined;
        if (text === "") continue;
        if (!(await segmentOf(step).close(text))) await postWhole(text);
      }
    },
    async answer(card) {
      const metadata = answerMetadata(card.runId);
      const segment = live === undefined ? undefined : segments.get(live);
      if (segment) {
        const blocks = [...(card.stop ? [guardLineBlock(card.stop).block] : []), ...feedbackBlocks(card.runId, card.stop)];
        const shown = await segment.close(card.answer, { blocks, metadata });
        if (shown?.ended) return { ts: shown.first, withFeedback: true };
        if (shown) {
          if (card.stop) await posts.guardLine(where, card.stop);
          return { ts: shown.first, withFeedback: false };
        }
      }
      const ts = await posts.answer(where, card.answer, card.stop, metadata);
      return ts === undefined ? undefined : { ts, withFeedback: false };
    },
    unfinished: () => [...segments.values()].flatMap((segment) => segment.unfinished()),
  };
}
