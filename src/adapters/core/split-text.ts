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

type FenceState = { readonly open: false } | { readonly open: true; readonly language: string };

const CLOSED: FenceState = { open: false };

/**
 * Every part is at most `maxChars` long (added fences included), holds an even number of
 * ``` and has some non-whitespace. Only whitespace is dropped, at the cut points. Returns
 * [] only when the text is empty or all whitespace. Throws RangeError when `maxChars` is
 * not a whole number of at least MIN_SPLIT_CHARS.
 */
export function splitText(text: string, maxChars: number): string[] {
  if (!Number.isInteger(maxChars) || maxChars < MIN_SPLIT_CHARS) {
    throw new RangeError(`splitText: maxChars must be a whole number of at least ${MIN_SPLIT_CHARS} (got ${maxChars})`);
  }
  const pieceBudget = maxChars - (FENCE.length + MAX_LANGUAGE + 1) - CLOSE.length;
  const parts: string[] = [];
  let prefix = "";
  let body = "";
  let state = CLOSED;

  for (const piece of pieces(text, pieceBudget)) {
    const blank = piece.trim() === "";
    if (body === "" && blank) continue;
    const after = blank ? state : scanFences(piece, state);
    if (prefix.length + (body + piece).trimEnd().length + (after.open ? CLOSE.length : 0) <= maxChars) {
      body += piece;
      state = after;
      continue;
    }
    parts.push(prefix + body.trimEnd() + (state.open ? CLOSE : ""));
    prefix = state.open ? `${FENCE}${state.language}\n` : "";
    body = blank ? "" : piece;
    state = after;
  }
  if (body !== "") parts.push(prefix + body.trimEnd() + (state.open ? CLOSE : ""));
  return parts;
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

function scanFences(piece: string, state: FenceState): FenceState {
  let next = state;
  for (const match of piece.matchAll(/```/g)) {
    next = next.open ? CLOSED : { open: true, language: languageAfter(piece, match.index + FENCE.length) };
  }
  return next;
}

function languageAfter(piece: string, from: number): string {
  const rest = (piece.slice(from).split("\n", 1)[0] ?? "").trim();
  return rest.length <= MAX_LANGUAGE && LANGUAGE.test(rest) ? rest : "";
}
