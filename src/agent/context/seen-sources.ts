// The texts from other sources a run has read (its thread, files, tool results, remembered
// facts), kept with the run so that when a write asks for approval, also after a restart, the card
// can say which of its arguments came from them. Kept in the run's checkpoint, so bounded: a tool
// that returns megabytes, or a run of hundreds of reads, must not make every checkpoint that big.
// The model can only copy what is still in its context, which its window bounds, so the newest
// texts up to about a window's worth are what matters; older ones go first.
import { z } from "zod";
import { MAX_ORIGINS } from "./untrusted-writes.js";
import { isRequesterSource, type SourcedText, type TextSource, type WriteProvenance } from "../../contracts/provenance.js";
import { TextSourceSchema } from "../../memory/run-records/source-schema.js";

/** One text is kept up to this many characters: a tool result's cap in the context is smaller for any usual window. */
export const SEEN_TEXT_MAX_CHARS = 40_000;
/** All texts kept together: about a large model window's worth of characters. */
export const SEEN_TOTAL_MAX_CHARS = 400_000;
/** At most this many texts, however short. */
export const SEEN_MAX_TEXTS = 500;

/** A stored approval's origins, for its card after a restart. */
export const WriteProvenanceSchema = z.object({
  origins: z
    .array(
      z.object({
        argument: z.string().max(1_000),
        role: z.enum(["destination", "text"]),
        source: TextSourceSchema,
        match: z.enum(["whole", "part"]),
      }),
    )
    .min(1)
    .max(MAX_ORIGINS)
    .readonly(),
  needs: z.enum(["warning", "other_approver"]),
}) satisfies z.ZodType<WriteProvenance>;

/** A stored run's seen texts, checked with the same bounds they were kept under. */
export const SeenSourcesSchema = z
  .array(z.object({ source: TextSourceSchema, text: z.string().max(SEEN_TEXT_MAX_CHARS) }))
  .max(SEEN_MAX_TEXTS)
  .readonly() satisfies z.ZodType<readonly SourcedText[]>;

const sameSource = (a: TextSource, b: TextSource): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * `kept` with `seen` added after it: the requester's own texts left out (the run has them as its
 * question), each text cut to its bound, one already kept from the same source not kept twice,
 * then the oldest dropped until the count and the total fit.
 */
export function keepSeen(kept: readonly SourcedText[], seen: readonly SourcedText[]): SourcedText[] {
  const next = [...kept];
  for (const item of seen) {
    if (isRequesterSource(item.source) || item.text.trim() === "") continue;
    const text = item.text.length > SEEN_TEXT_MAX_CHARS ? item.text.slice(0, SEEN_TEXT_MAX_CHARS) : item.text;
    if (next.some((other) => other.text === text && sameSource(other.source, item.source))) continue;
    next.push({ source: item.source, text });
  }
  let total = next.reduce((sum, item) => sum + item.text.length, 0);
  let first = Math.max(0, next.length - SEEN_MAX_TEXTS);
  for (let index = 0; index < first; index++) total -= next[index]!.text.length;
  while (total > SEEN_TOTAL_MAX_CHARS && first < next.length - 1) total -= next[first++]!.text.length;
  return first === 0 ? next : next.slice(first);
}
