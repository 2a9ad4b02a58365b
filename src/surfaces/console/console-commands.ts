// What a line typed in the console means: a question, one of the core's commands after a "/",
// or one of the console's own (/trace, /demo loop, /help, /quit). Anything else that starts
// with "/" is answered with what to type instead.
import { commandIn } from "../core/commands.js";

export type ConsoleCommand =
  | { readonly kind: "ask"; readonly text: string }
  | { readonly kind: "empty" }
  /** One of the core's commands (core/commands.ts): memory, forget, tools, settings, audit… */
  | { readonly kind: "command"; readonly name: string }
  | { readonly kind: "trace" }
  /** `question` is undefined when none followed `/demo loop`. */
  | { readonly kind: "demo_loop"; readonly question?: string }
  | { readonly kind: "help" }
  | { readonly kind: "quit" }
  | { readonly kind: "bad_command"; readonly message: string };

const OWN: Readonly<Record<string, ConsoleCommand>> = {
  "/trace": { kind: "trace" },
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
  const known = OWN[command] ?? (commandIn(command.slice(1)) ? { kind: "command" as const, name: command.slice(1) } : undefined);
  if (known) {
    return rest.length === 0 ? known : { kind: "bad_command", message: `${command} takes nothing after it. Type /help for the commands.` };
  }
  if (command === "/demo") {
    const demo = /^\/demo\s+loop(?:\s+(.+))?$/i.exec(text);
    if (!demo) return { kind: "bad_command", message: "Usage: /demo loop [question]" };
    return demo[1] === undefined ? { kind: "demo_loop" } : { kind: "demo_loop", question: demo[1] };
  }
  return { kind: "bad_command", message: `Unknown command ${name}. Type /help for the commands.` };
}

/** y or yes (any case) approves; everything else, the empty line included, denies. */
export function isApproval(answer: string): boolean {
  return /^(y|yes)$/i.test(answer.trim());
}
