// Where a PDF's streams are, and what their dictionaries say about decoding them: every
// `stream` keyword in the file (streams are never inside object streams, so none is missed),
// the dictionary just before it, its filters in order and whether it is an image (pdf.js
// reads text without decoding images). The file is untrusted: a dictionary that can't be read
// leaves the filters unknown, and the pre-scan then goes by the bytes themselves.
import { parseDictionary, type PdfValue } from "./pdf-dictionary.js";

export interface PdfStream {
  /** Offset of the stream's first data byte. */
  readonly start: number;
  /**
   * Offset after its last data byte, when a direct /Length is followed by `endstream` (pdf.js then
   * trusts it too). Otherwise unknown: an `endstream` inside the data must not end the measure early.
   */
  readonly end: number | undefined;
  /** Its /Filter names in order ([] for none); undefined when its dictionary could not be read. */
  readonly filters: readonly string[] | undefined;
  /** LZW's /EarlyChange per filter, from /DecodeParms (true unless it says 0). */
  readonly earlyChange: readonly boolean[];
  /** /Subtype /Image: pdf.js never decodes it to read text. */
  readonly image: boolean;
}

/** How far back from `stream` a dictionary is looked for: any real one is far shorter. */
const MAX_DICTIONARY_CHARS = 65_536;
const KEYWORD = "stream";

const isSpace = (char: string | undefined) =>
  char === " " || char === "\n" || char === "\r" || char === "\t" || char === "\f" || char === "\0";
const isLetter = (char: string | undefined) => char !== undefined && /[A-Za-z0-9]/.test(char);

/** `text` is the file as latin1, one character per byte. */
export function* pdfStreams(text: string): Generator<PdfStream> {
  for (let at = text.indexOf(KEYWORD); at >= 0; at = text.indexOf(KEYWORD, at + KEYWORD.length)) {
    // `endstream`, `streams` or a word that merely contains it.
    if (isLetter(text[at - 1]) || isLetter(text[at + KEYWORD.length])) continue;
    const start = dataStart(text, at + KEYWORD.length);
    const dict = dictionaryBefore(text, at);
    yield { start, end: endOf(text, start, dict?.get("Length")), ...described(dict) };
  }
}

/** pdf.js skips to the next line after the keyword: CR LF, LF or CR. */
function dataStart(text: string, afterKeyword: number): number {
  let at = afterKeyword;
  while (at < text.length && text[at] !== "\n" && text[at] !== "\r") at++;
  if (text[at] === "\r" && text[at + 1] === "\n") return at + 2;
  return Math.min(text.length, at + 1);
}

function endOf(text: string, start: number, length: PdfValue | undefined): number | undefined {
  if (length?.kind !== "number" || !Number.isInteger(length.value) || length.value < 0) return undefined;
  const end = start + length.value;
  let after = end;
  while (after < text.length && isSpace(text[after])) after++;
  return text.startsWith("endstream", after) ? end : undefined;
}

/** The `<< … >>` that ends right before `keywordAt`, matched backwards, then parsed forwards. */
function dictionaryBefore(text: string, keywordAt: number): ReadonlyMap<string, PdfValue> | undefined {
  let end = keywordAt;
  while (end > 0 && isSpace(text[end - 1])) end--;
  if (text.slice(end - 2, end) !== ">>") return undefined;
  let depth = 0;
  for (let at = end; at >= 2 && end - at < MAX_DICTIONARY_CHARS; ) {
    const pair = text.slice(at - 2, at);
    if (pair === ">>") {
      depth++;
      at -= 2;
    } else if (pair === "<<") {
      depth--;
      at -= 2;
      if (depth === 0) return parseDictionary(text.slice(at, end));
    } else at--;
  }
  return undefined;
}

function described(dict: ReadonlyMap<string, PdfValue> | undefined): Omit<PdfStream, "start" | "end"> {
  if (!dict) return { filters: undefined, earlyChange: [], image: false };
  const subtype = dict.get("Subtype");
  const image = subtype?.kind === "name" && subtype.name === "Image";
  const filter = dict.get("Filter");
  const filters = filterNames(filter);
  const parms = dict.get("DecodeParms");
  const parmsList = parms?.kind === "array" ? parms.items : parms ? [parms] : [];
  const earlyChange = (filters ?? []).map((_, index) => {
    const each = parmsList[index];
    const value = each?.kind === "dict" ? each.entries.get("EarlyChange") : undefined;
    return !(value?.kind === "number" && value.value === 0);
  });
  return { filters, earlyChange, image };
}

function filterNames(filter: PdfValue | undefined): readonly string[] | undefined {
  if (filter === undefined) return [];
  if (filter.kind === "name") return [filter.name];
  if (filter.kind === "array" && filter.items.every((item) => item.kind === "name"))
    return filter.items.map((item) => (item as Extract<PdfValue, { kind: "name" }>).name);
  // A reference or anything else: not readable here.
  return undefined;
}
