// A text-like file's bytes as text: UTF-8, with each invalid byte sequence replaced by U+FFFD
// (and counted, so the header can say the file was not clean UTF-8), the BOM dropped.
const REPLACEMENT = "\uFFFD";
const ENCODED_REPLACEMENT = Buffer.from(REPLACEMENT, "utf8");

export interface DecodedText {
  readonly text: string;
  /** Invalid sequences replaced (not counting U+FFFD the file really contains). */
  readonly replaced: number;
}

function occurrences(haystack: string | Buffer, needle: string | Buffer): number {
  let count = 0;
  for (let at = haystack.indexOf(needle as never); at !== -1; at = haystack.indexOf(needle as never, at + needle.length)) count++;
  return count;
}

export function decodeText(data: Buffer): DecodedText {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(data);
  if (!text.includes(REPLACEMENT)) return { text, replaced: 0 };
  return { text, replaced: Math.max(0, occurrences(text, REPLACEMENT) - occurrences(data, ENCODED_REPLACEMENT)) };
}
