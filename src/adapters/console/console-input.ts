// The console's input: readline over the terminal (through the bracketed-paste filter, so a
// paste is one line) or over a pipe. It hands over whole lines, the end of input and Ctrl-C,
// and draws the prompt; what those mean is the session's to decide.
import { createInterface } from "node:readline";
import { DISABLE_PASTE, ENABLE_PASTE, pasteInput, unfoldPaste } from "./paste-input.js";

export interface ConsoleInput {
  /** What is typed and not yet sent. */
  typed(): string;
  /** Drops what is typed and not yet sent. */
  clearLine(): void;
  /** Draws `text` as the prompt, keeping what is typed after it. */
  prompt(text: string): void;
  /** Stops reading; the terminal's paste mode is switched back off. Idempotent. */
  close(): void;
}

export function openConsoleInput(options: {
  readonly source: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** The output is a terminal: readline edits lines there, and pastes arrive bracketed. */
  readonly terminal: boolean;
  onLine(line: string): void;
  onEnd(): void;
  onCtrlC(): void;
}): ConsoleInput {
  const { output, terminal } = options;
  const filtered = terminal ? pasteInput(options.source) : undefined;
  const reader = createInterface({ input: filtered ?? options.source, output });
  let open = true;
  if (terminal) output.write(ENABLE_PASTE);
  reader.on("line", (line) => options.onLine(unfoldPaste(line)));
  reader.on("close", () => {
    open = false;
    options.onEnd();
  });
  // On a terminal Ctrl-C reaches readline, not the process.
  reader.on("SIGINT", () => options.onCtrlC());
  return {
    typed: () => reader.line,
    clearLine() {
      reader.write(null, { ctrl: true, name: "e" });
      reader.write(null, { ctrl: true, name: "u" });
    },
    prompt(text) {
      if (!open) return;
      reader.setPrompt(text);
      reader.prompt(true);
    },
    close() {
      if (!open) return;
      open = false;
      if (terminal) output.write(DISABLE_PASTE);
      reader.close();
      filtered?.detach();
    },
  };
}
