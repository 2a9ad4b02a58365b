// Which channels a run read that its answer quotes: the places whose text the answer carries,
// found as the approval card finds copied text (write-origins.ts), by runs of words in common.
// A few words in common are chance ("let me know if"), a long run is a quote; a short answer
// made mostly of a read's words quotes it too. Pure: the answer's hold asks who can see them.
import type { StepRecord } from "../../contracts/types.js";
import { SHINGLE_WORDS, shingles, words } from "./write-origins.js";

/** An answer quotes a read when at least this many of its words lie in runs found in the read... */
const QUOTED_WORDS = 8;
/** ...or, for an answer shorter than that, this share of its words. */
const QUOTED_SHARE = 0.5;

/** The words of `answer` covered by runs of SHINGLE_WORDS words also found in `read`. */
function coveredWords(answer: readonly string[], read: ReadonlySet<string>): number {
  const covered = new Array<boolean>(answer.length).fill(false);
  for (let index = 0; index + SHINGLE_WORDS <= answer.length; index++)
    if (read.has(answer.slice(index, index + SHINGLE_WORDS).join(" "))) covered.fill(true, index, index + SHINGLE_WORDS);
  return covered.filter(Boolean).length;
}

/** Whether `answer` carries text of `read`: a run of QUOTED_WORDS words, or most of a short answer. */
export function quotes(answer: string, read: string): boolean {
  const list = words(answer);
  if (list.length < SHINGLE_WORDS) return false;
  const covered = coveredWords(list, shingles(words(read)));
  return covered >= Math.min(QUOTED_WORDS, Math.ceil(list.length * QUOTED_SHARE));
}

/** The channels of the run's successful reads whose results `answer` quotes, each once, in the order read. */
export function quotedReads(answer: string, steps: readonly StepRecord[]): string[] {
  const found = new Set<string>();
  for (const step of steps)
    for (const call of step.calls) {
      const channel = call.source?.kind === "tool" ? call.source.channel : undefined;
      if (channel !== undefined && call.outcome === "ok" && !found.has(channel) && quotes(answer, call.result)) found.add(channel);
    }
  return [...found];
}
