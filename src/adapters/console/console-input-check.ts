// Whether the console has someone to talk to. With no chat token the process chats in the
// terminal; a container or service whose environment did not load has no terminal either, and
// its standard input is /dev/null or closed. Such a start must fail (exit 1, one line) instead of
// printing a banner and "Bye." and exiting 0, which a process manager calls healthy or restarts
// forever. A pipe or a file is someone's script (`echo … | npm start`) and is read as typed.
import { fstatSync } from "node:fs";
import { isatty } from "node:tty";

/** The one line printed when the console has no input to read. */
export const NO_TERMINAL_MESSAGE =
  "Cannot start: no chat token is set (SLACK_BOT_TOKEN or DISCORD_TOKEN) and there is no terminal for the console (standard input is /dev/null or closed); set the chat variables (see .env.example), or run npm start in a terminal";

/** True when file descriptor `fd` is a terminal, a pipe, a socket or a file; false for /dev/null or a closed descriptor. Never throws. */
export function hasConsoleInput(fd = 0): boolean {
  if (isatty(fd)) return true;
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isSocket() || stat.isFile();
  } catch {
    return false;
  }
}
