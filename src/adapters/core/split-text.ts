// Splits long text into chat-sized messages: at line boundaries first, then at word
// boundaries, and only cuts a word that alone is longer than a message. A ``` code block
// cut in two is closed at the end of one part and reopened (with its language) at the
// start of the next, so every part renders on its own.

const FENCE = "```";
const CLOSE = "\n```";
const MAX_LANGUAGE = 20;
const LANGUAGE = /^[\w+#.-]+$/;

/** The smallest limit that leaves room for a reopened fence, a closing fence and some text. */
export const MIN_SPLIT_CHARS = 40;

/** Whether a ``` code block is open at a point of a text, and its language (reopened with it in the next part). */
export type FenceState = { readonly open: false } | { readonly open: true; readonly language: string };

export const NO_FENCE: FenceState = { open: false };

/** One part of a split, with where the text it took ends (the next part's text starts there) and the block open after it. */
export interface SplitPart {
  readonly text: string;
  readonly end: number;
  readonly after: FenceState;
}

/**
 * Every part is at most `maxChars` long (added fences included), holds an even number of
 * ``` and has some non-whitespace. Only whitespace is dropped, at the cut points. Returns
 * [] only when the text is empty or all whitespace. Throws RangeError when `maxChars` is
 * not a whole number of at least MIN_SPLIT_CHARS.
 */
export function splitText(text: string, maxChars: number): string[] {
  return splitParts(text, maxChars).map((part) => part.text);
}

/** splitText's parts with where each ends; `opening`: a block left open before `text`, reopened at the start of its first part. */
export function splitParts(text: string, maxChars: number, opening: FenceState = NO_FENCE): SplitPart[] {
  if (!Number.isInteger(maxChars) || maxChars < MIN_SPLIT_CHARS) {
    throw new RangeError(`splitText: maxChars must be a whole number of at least ${MIN_SPLIT_CHARS} (got ${maxChars})`);
  }
  const pieceBudget = maxChars - (FENCE.length + MAX_LANGUAGE + 1) - CLOSE.length;
  const parts: SplitPart[] = [];
  let prefix = fenceOpener(opening);
  let body = "";
  let state = opening;
  let at = 0;

  for (const piece of pieces(text, pieceBudget)) {
    const start = at;
    at += piece.length;
    const blank = piece.trim() === "";
    if (body === "" && blank) continue;
    const after = blank ? state : fenceAfter(piece, state);
    if (prefix.length + (body + piece).trimEnd().length + (after.open ? CLOSE.length : 0) <= maxChars) {
      body += piece;
      state = after;
      continue;
    }
    parts.push({ text: prefix + body.trimEnd() + fenceCloser(state), end: start, after: state });
    prefix = fenceOpener(state);
    body = blank ? "" : piece;
    state = after;
  }
  if (body !== "") parts.push({ text: prefix + body.trimEnd() + fenceCloser(state), end: text.length, after: state });
  return parts;
}

/** What reopens a block left open at the start of a part. */
export function fenceOpener(state: FenceState): string {
  return state.open ? `${FENCE}${state.language}\n` : "";
}

/** What closes a block left open at the end of a part. */
export function fenceCloser(state: FenceState): string {
  return state.open ? CLOSE : "";
}

/** Lines (newline kept); a line over the budget becomes words; a word over it is cut. */
function* pieces(text: string, budget: number): Generator<string> {
  for (const line of text.split(/(?<=\n)/)) {
    if (line.length <= budget) {
      yield line;
      continue;
    }
    for (const word of line.match(/\s+|\S+\s*/g) ?? []) {
      if (word.length <= budget) yield word;
      else yield* hardCut(word, budget);
    }
  }
}

function* hardCut(word: string, budget: number): Generator<string> {
  let rest = word;
  while (rest.length > budget) {
    const cut = safeCut(rest, budget);
    yield rest.slice(0, cut);
    rest = rest.slice(cut);
  }
  if (rest !== "") yield rest;
}

/**
 * A cut that never changes how many ``` the text holds (inside a run of backticks it
 * leaves a multiple of three before the cut) and never splits a surrogate pair.
 */
function safeCut(text: string, at: number): number {
  let cut = at;
  if (text[cut - 1] === "`" && text[cut] === "`") {
    let runStart = cut - 1;
    while (runStart > 0 && text[runStart - 1] === "`") runStart -= 1;
    cut -= (cut - runStart) % 3;
  }
  const before = text.charCodeAt(cut - 1);
  if (before >= 0xd800 && before <= 0xdbff) cut -= 1;
  return cut;
}

/** The block open after `piece`, given the one open before it. */
export function fenceAfter(piece: string, state: FenceState): FenceState {
  let next = state;
  for (const match of piece.matchAll(/```/g)) {
    next = next.open ? NO_FENCE : { open: true, language: languageAfter(piece, match.index + FENCE.length) };
  }
  return next;
}

function languageAfter(piece: string, from: number): string {
  const rest = (piece.slice(from).split("\n", 1)[0] ?? "").trim();
  return rest.length <= MAX_LANGUAGE && LANGUAGE.test(rest) ? rest : "";
}
