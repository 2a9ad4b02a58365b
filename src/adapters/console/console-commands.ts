// What a line typed in the console means: a question, one of the core's commands after a "/",
// or one of the console's own (/new, /trace, /attach, /demo loop, /demo write, /help, /quit). Anything else that starts
// with "/" is answered with what to type instead.
import { commandIn } from "../core/commands.js";

export type ConsoleCommand =
  | { readonly kind: "ask"; readonly text: string }
  | { readonly kind: "empty" }
  /** One of the core's commands (core/commands.ts): memory, forget, tools, settings, audit…; `text` follows the name of one that takes it (`/schedule <when>: <what>`). */
  | { readonly kind: "command"; readonly name: string; readonly text: string }
  | { readonly kind: "trace" }
  /** A file on this machine and the question about it (maybe none: the file alone is the question). */
  | { readonly kind: "attach"; readonly path: string; readonly question: string }
  /** A fresh conversation: the earlier turns are no longer sent to the model. */
  | { readonly kind: "new" }
  /** `question` is undefined when none followed `/demo loop`. */
  | { readonly kind: "demo_loop"; readonly question?: string }
  /** `note` is undefined when none followed `/demo write`. */
  | { readonly kind: "demo_write"; readonly note?: string }
  | { readonly kind: "help" }
  | { readonly kind: "quit" }
  | { readonly kind: "bad_command"; readonly message: string };

const OWN: Readonly<Record<string, ConsoleCommand>> = {
  "/trace": { kind: "trace" },
  "/new": { kind: "new" },
  "/help": { kind: "help" },
  "/quit": { kind: "quit" },
  "/exit": { kind: "quit" },
};

export function parseCommand(line: string): ConsoleCommand {
  const text = line.trim();
  if (text === "") return { kind: "empty" };
  if (!text.startsWith("/")) return { kind: "ask", text };
  const [name = "", ...rest] = text.split(/\s+/);
  const command = name.toLowerCase();
  const core = commandIn(command.slice(1));
  if (core?.command.takesText) return { kind: "command", name: core.command.name, text: rest.join(" ") };
  const known = OWN[command] ?? (core ? { kind: "command" as const, name: core.command.name, text: "" } : undefined);
  if (known) {
    return rest.length === 0 ? known : { kind: "bad_command", message: `${command} takes nothing after it. Type /help for the commands.` };
  }
  if (command === "/attach") {
    const attach = /^\/attach\s+(?:"([^"]+)"|'([^']+)'|(\S+))(?:\s+(.*))?$/is.exec(text);
    if (!attach) return { kind: "bad_command", message: "Usage: /attach PATH [question]" };
    return { kind: "attach", path: attach[1] ?? attach[2] ?? attach[3]!, question: (attach[4] ?? "").trim() };
  }
  if (command === "/demo") {
    const demo = /^\/demo\s+(loop|write)(?:\s+(.+))?$/is.exec(text);
    if (!demo) return { kind: "bad_command", message: "Usage: /demo loop [question], or /demo write [note]" };
    if (demo[1]!.toLowerCase() === "write") return demo[2] === undefined ? { kind: "demo_write" } : { kind: "demo_write", note: demo[2] };
    return demo[2] === undefined ? { kind: "demo_loop" } : { kind: "demo_loop", question: demo[2] };
  }
  return { kind: "bad_command", message: `Unknown command ${name}. Type /help for the commands.` };
}

/** y or yes (any case) approves; everything else, the empty line included, denies. */
export function isApproval(answer: string): boolean {
  return /^(y|yes)$/i.test(answer.trim());
}
