// What of a growing text can be streamed into a Slack message now, and where a full streamed
// message is cut. A streamed message only grows: what was appended cannot be taken back. So
// nothing is sent that more text could still change: the whitespace at the end (the answer ends
// without it), and a word that may be becoming a mention (from its "@", or from a "<" not closed
// yet) until it is whole, when neutraliseMentions sees it entire. Sizes are counted as Slack
// counts a stream's chunks, in JSON characters. Pure.

const MARKDOWN_CHUNK_CHARS = JSON.stringify({ type: "markdown_text", text: "" }).length;

/** The longest start of `text` that more text cannot change once neutralised: it never ends in whitespace. */
export function streamable(text: string): string {
  let end = text.length;
  const opened = text.lastIndexOf("<");
  if (opened > text.lastIndexOf(">")) end = opened;
  const wordStart = Math.max(text.lastIndexOf(" ", end - 1), text.lastIndexOf("\n", end - 1), text.lastIndexOf("\t", end - 1)) + 1;
  // An "@" inside a closed <…> is that mention's label (<!subteam^S1|@devs>): the whole mention goes
  // at once, for neutraliseMentions to see it entire; only an "@" after it may still be growing.
  const at = text.indexOf("@", Math.max(wordStart, text.lastIndexOf(">", end - 1) + 1));
  if (at !== -1 && at < end) end = at;
  return text.slice(0, end).trimEnd();
}

/** What `char` takes in JSON: escapes for quotes, backslashes and control characters. */
function escapedLength(code: number): number {
  if (code === 0x22 || code === 0x5c || code === 0x08 || code === 0x0c || code === 0x0a || code === 0x0d || code === 0x09) return 2;
  return code < 0x20 ? 6 : 1;
}

/** What appending `text` as one markdown chunk adds to a stream's chunks (with the comma between chunks). */
export function chunkChars(text: string): number {
  return JSON.stringify(text).length - 2 + MARKDOWN_CHUNK_CHARS + 1;
}

/**
 * How much of `text` goes into a message with `room` JSON characters left: all of it when it
 * fits; else up to the last line break in the second half of what fits, else the last space,
 * else as much as fits (never between the halves of a surrogate pair). 0 when nothing fits.
 */
export function streamCut(text: string, room: number): number {
  if (chunkChars(text) <= room) return text.length;
  let fits = 0;
  for (let used = MARKDOWN_CHUNK_CHARS + 1; fits < text.length; fits++) {
    used += escapedLength(text.charCodeAt(fits));
    if (used > room) break;
  }
  const code = text.charCodeAt(fits - 1);
  if (fits > 0 && code >= 0xd800 && code <= 0xdbff) fits -= 1;
  const line = text.lastIndexOf("\n", fits - 1) + 1;
  if (line > fits / 2) return line;
  const space = Math.max(text.lastIndexOf(" ", fits - 1), text.lastIndexOf("\t", fits - 1)) + 1;
  return space > 0 ? space : fits;
}
