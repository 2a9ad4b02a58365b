// What the model writes, printed in the console as it comes: each segment of the core's draft
// (its words before a tool call, then the answer) as a paragraph of the transcript, its text
// written piece by piece, cleaned of terminal control sequences. A segment that ends (sealed)
// ends its line; text the model started over is marked, then printed again. The answer then
// prints only what did not show yet, so nothing is printed twice.
import type { Draft } from "../core/answer-draft.js";
import type { ConsoleOutput } from "./console-output.js";
import { clean } from "./console-text.js";

export const STARTED_OVER = "  · the model started this text over:";

export interface DraftPrinter {
  /** Prints what the draft adds to what was printed. */
  print(draft: Draft): void;
  /** Ends the line a text left open, before anything else prints (a status line would write over it). */
  endLine(): void;
  /** Prints the rest of `answer` after the text that showed of it; false when none showed (the caller prints the answer). */
  finish(answer: string): boolean;
}

export function createDraftPrinter(out: ConsoleOutput): DraftPrinter {
  /** What was printed of the segment being written, and its step. */
  let live: { step: number; printed: string } | undefined;
  const ended = new Set<number>();
  let lineOpen = false;

  function endLine(): void {
    if (!lineOpen) return;
    out.write("\n");
    lineOpen = false;
  }

  /** Prints `text` (the segment's text so far) after what was printed of it. */
  function printUpTo(text: string): void {
    if (!live) return;
    let rest: string;
    if (text.startsWith(live.printed)) rest = text.slice(live.printed.length);
    else {
      endLine();
      out.line(STARTED_OVER);
      rest = text;
    }
    live.printed = text;
    if (rest === "") return;
    out.write(clean(rest));
    lineOpen = !rest.endsWith("\n");
  }

  return {
    print(draft) {
      for (const { step, text, sealed } of draft.segments) {
        if (ended.has(step)) continue;
        if (live?.step !== step) {
          endLine();
          if (live) ended.add(live.step);
          live = { step, printed: "" };
        }
        // Whitespace at the end is held back: the answer may end without it.
        printUpTo(text.trimEnd());
        if (sealed) {
          endLine();
          ended.add(step);
          live = undefined;
        }
      }
    },
    endLine,
    finish(answer) {
      if (!live || live.printed === "") return false;
      printUpTo(answer);
      endLine();
      live = undefined;
      return true;
    },
  };
}
