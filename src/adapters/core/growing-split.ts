// A text that grows at its end (an answer as the model writes it), split into chat-sized parts
// as it grows. A part is sealed once text follows it in a next part, and a sealed part never
// changes, so a message already showing it is left alone: only the live part (the last) is
// written again as the text grows. Cuts are splitText's (lines, then words; code blocks closed
// and reopened across parts), made on what is there when a part fills. Pure.
import { NO_FENCE, splitParts, type FenceState } from "./split-text.js";

export interface GrowingSplit {
  /** The parts that will not change. */
  readonly sealed: readonly string[];
  /** The start of the text the sealed parts were cut from: the live parts are cut from what follows it. */
  readonly sealedFrom: string;
  /** The code block open where the sealed parts end, reopened at the start of the next part. */
  readonly fence: FenceState;
}

export const UNSPLIT: GrowingSplit = { sealed: [], sealedFrom: "", fence: NO_FENCE };

export interface GrownParts {
  readonly split: GrowingSplit;
  /** Every part of the text now: the sealed ones, then at most one live part. */
  readonly parts: readonly string[];
}

/**
 * The parts of `text` given how it was split before (`text` must start with the text the sealed
 * parts came from; undefined when it does not: the text was written over, and is split afresh).
 */
export function grow(before: GrowingSplit, text: string, maxChars: number): GrownParts | undefined {
  if (!text.startsWith(before.sealedFrom)) return undefined;
  const rest = splitParts(text.slice(before.sealedFrom.length), maxChars, before.fence);
  const sealing = rest.slice(0, -1);
  const last = sealing.at(-1);
  const split: GrowingSplit = last
    ? {
        sealed: [...before.sealed, ...sealing.map((part) => part.text)],
        sealedFrom: text.slice(0, before.sealedFrom.length + last.end),
        fence: last.after,
      }
    : before;
  const live = rest.at(-1);
  return { split, parts: live ? [...split.sealed, live.text] : split.sealed };
}
