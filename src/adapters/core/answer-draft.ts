// What the model has written so far in a run, as the person should see it: one segment per step
// whose text streamed. A segment is live while its step writes; it is sealed when the step turns
// out to call tools (its text was the model saying what it is about to do: it stays shown, and it
// is not part of the answer) or when a later step starts writing. A try that failed after
// streaming voids its step's text (text_restart). Then, when the run ends, what the answer's
// segment must end up saying. Pure.
import type { AgentEvent, RunOutcome } from "../../contracts/types.js";

export interface DraftSegment {
  readonly step: number;
  /** The step's text so far, without the whitespace it started with. */
  readonly text: string;
  readonly sealed: boolean;
}

/** Segments in the order their steps wrote them; only the last one can be live. */
export interface Draft {
  readonly segments: readonly DraftSegment[];
}

export const EMPTY_DRAFT: Draft = { segments: [] };

const seal = (segment: DraftSegment): DraftSegment => (segment.sealed ? segment : { ...segment, sealed: true });

function withLast(draft: Draft, last: DraftSegment): Draft {
  return { segments: [...draft.segments.slice(0, -1), last] };
}

/** The draft after `event`: the same object when the event changes nothing. */
export function draftAfter(draft: Draft, event: AgentEvent): Draft {
  const last = draft.segments.at(-1);
  const writing = last && !last.sealed ? last : undefined;
  switch (event.type) {
    case "text_delta": {
      if (writing?.step === event.step) return withLast(draft, { ...writing, text: (writing.text + event.text).trimStart() });
      const text = event.text.trimStart();
      if (text === "") return draft;
      return { segments: [...draft.segments.map(seal), { step: event.step, text, sealed: false }] };
    }
    case "text_restart":
      return writing?.step === event.step && writing.text !== "" ? withLast(draft, { ...writing, text: "" }) : draft;
    case "model_replied":
      if (writing?.step !== event.step || event.toolCalls.length === 0) return draft;
      // The reply's own text is what the model wrote; the stream may have missed a piece of it.
      return withLast(draft, { ...writing, text: (event.text ?? writing.text).trim(), sealed: true });
    default:
      return draft;
  }
}

/** The draft with nothing left live: what shows of it stays as it is. */
export function sealedDraft(draft: Draft): Draft {
  return draft.segments.every((segment) => segment.sealed) ? draft : { segments: draft.segments.map(seal) };
}

/** True when some segment shows text. */
export function showsText(draft: Draft): boolean {
  return draft.segments.some((segment) => segment.text !== "");
}

/** The segment still being written, when it shows some text. */
export function liveSegment(draft: Draft): DraftSegment | undefined {
  const last = draft.segments.at(-1);
  return last && !last.sealed && last.text.trim() !== "" ? last : undefined;
}

/**
 * What the answer's message ends up saying, given what streamed: the answer itself, as a
 * continuation of the live text when that is how it began. A run stopped while its text was being
 * written (a person's Stop, a guard) keeps what was shown, and the stop line follows it: the
 * summary written after the cut is not shown.
 */
export function answerShown(draft: Draft, outcome: Extract<RunOutcome, { status: "answered" }>): string {
  const live = liveSegment(draft);
  // A held answer's note stands in for the answer, whatever showed before it.
  if (outcome.held) return outcome.answer.trim();
  if (!live || live.text.trim() === outcome.answer.trim()) return outcome.answer.trim();
  return outcome.stop ? live.text.trimEnd() : outcome.answer.trim();
}
