// Writes the console's lines. On a terminal it also keeps one status line ("… step 2: waiting
// for the model") that the next line replaces; elsewhere (pipes, tests) status lines are left out.
import { wrap } from "./console-text.js";

export interface ConsoleOutput {
  readonly isTerminal: boolean;
  /** How wide prose may be: the terminal's width up to MAX_WIDTH; MAX_WIDTH elsewhere. */
  width(): number;
  /** Writes `text` (one or more lines) and a newline, replacing the status line; on a terminal long lines wrap at spaces. */
  line(text: string): void;
  /** Writes `text` as it is (prompts). */
  write(text: string): void;
  /** Shows `text` as the status line (terminals only). */
  status(text: string): void;
  clearStatus(): void;
  /** The cursor left the status line (the person pressed Enter): it stays as it is. */
  leaveStatus(): void;
}

const CLEAR_LINE = "\r\u001b[2K";
/** Prose reads better in lines no longer than this, however wide the terminal. */
const MAX_WIDTH = 90;

export function createConsoleOutput(stream: NodeJS.WritableStream): ConsoleOutput {
  const terminal = stream as NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  const isTerminal = terminal.isTTY === true;
  let statusShown = false;
  const columns = () => Math.max(20, (terminal.columns ?? 80) - 1);
  const width = () => (isTerminal ? Math.min(MAX_WIDTH, columns()) : MAX_WIDTH);

  const clearStatus = () => {
    if (!statusShown) return;
    stream.write(CLEAR_LINE);
    statusShown = false;
  };

  return {
    isTerminal,
    width,
    line(text) {
      clearStatus();
      stream.write(`${isTerminal ? wrap(text, width()) : text}\n`);
    },
    write(text) {
      clearStatus();
      stream.write(text);
    },
    status(text) {
      if (!isTerminal) return;
      const room = columns();
      stream.write(`${CLEAR_LINE}${text.length > room ? `${text.slice(0, room - 1)}…` : text}`);
      statusShown = true;
    },
    clearStatus,
    leaveStatus() {
      statusShown = false;
    },
  };
}
