// Bracketed paste: a terminal asked to (ENABLE_PASTE) wraps pasted text in ESC[200~ … ESC[201~.
// readline would take each pasted newline as Enter, so a 3-line paste became three questions.
// This filter sits between the terminal and readline: inside a paste each line break becomes
// PASTED_BREAK, so readline edits and submits the paste as one line, shown on one row, and
// the console turns the marks back into line breaks (`unfoldPaste`). A terminal that does not
// bracket pastes still delivers one in a single chunk, where typing gives one key at a time: on a
// terminal, line breaks inside one chunk with text after them are a paste's too.
import { StringDecoder } from "node:string_decoder";
import { Transform } from "node:stream";

export const ENABLE_PASTE = "\u001b[?2004h";
export const DISABLE_PASTE = "\u001b[?2004l";
/** Shown where a pasted line ended; a person who types this character gets a line break too. */
export const PASTED_BREAK = "↵";

const START = "\u001b[200~";
const END = "\u001b[201~";

/** A line as the person meant it: pasted breaks are line breaks again. */
export function unfoldPaste(line: string): string {
  return line.replaceAll(PASTED_BREAK, "\n");
}

/** How much of `text`'s end could be the start of `marker` (so it waits for the next chunk). */
function partialMarkerAtEnd(text: string, marker: string): number {
  for (let length = Math.min(marker.length - 1, text.length); length > 0; length -= 1) {
    if (marker.startsWith(text.slice(-length))) return length;
  }
  return 0;
}

export interface PasteInput extends Transform {
  readonly isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
  /** Lets go of the source (once readline closed), so a terminal's input keeps no process alive. */
  detach(): void;
}

/**
 * `source` through the filter; a terminal's raw mode is still switched on `source`, so readline
 * treats the filter as the terminal it reads.
 */
export function pasteInput(source: NodeJS.ReadableStream): PasteInput {
  const terminal = source as NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  // A pipe's chunks hold many lines a script typed one by one: only a terminal's are folded.
  const unbracketed = (text: string) => (terminal.isTTY ? text.replace(/(?:\r\n|\r|\n)(?=[^\r\n])/g, PASTED_BREAK) : text);
  const decoder = new StringDecoder("utf8");
  let pasting = false;
  let held = "";

  const filter = (text: string): string => {
    let rest = held + text;
    held = "";
    let out = "";
    while (rest !== "") {
      const marker = pasting ? END : START;
      const at = rest.indexOf(marker);
      const chunk = at < 0 ? rest : rest.slice(0, at);
      const keep = at < 0 ? partialMarkerAtEnd(chunk, marker) : 0;
      const passed = chunk.slice(0, chunk.length - keep);
      out += pasting ? passed.replace(/\r\n|\r|\n/g, PASTED_BREAK) : unbracketed(passed);
      if (at < 0) {
        held = chunk.slice(chunk.length - keep);
        break;
      }
      pasting = !pasting;
      rest = rest.slice(at + marker.length);
    }
    // A paste that ends in a line break would otherwise end in a dangling mark.
    return pasting ? out : out.replace(new RegExp(`${PASTED_BREAK}+$`), "");
  };

  const transform = new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      done(null, filter(typeof chunk === "string" ? chunk : decoder.write(chunk)));
    },
    flush(done) {
      done(null, held + decoder.end());
    },
  }) as PasteInput;
  if (terminal.isTTY) {
    Object.assign(transform, { isTTY: true, setRawMode: (mode: boolean) => terminal.setRawMode?.(mode) });
  }
  transform.detach = () => {
    source.unpipe(transform);
    source.pause();
  };
  source.pipe(transform);
  return transform;
}
