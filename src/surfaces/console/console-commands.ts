// What a line typed in the console means. Anything that is not a known command is a question.

export type ConsoleCommand =
  | { readonly kind: "ask"; readonly text: string }
  | { readonly kind: "empty" }
  | { readonly kind: "trace" }
  | { readonly kind: "memory" }
  | { readonly kind: "forget" }
  | { readonly kind: "tools" }
  | { readonly kind: "audit" }
  | { readonly kind: "settings" }
  /** `question` is undefined when none followed `/demo loop`. */
  | { readonly kind: "demo_loop"; readonly question?: string }
  | { readonly kind: "help" }
  | { readonly kind: "quit" }
  | { readonly kind: "bad_command"; readonly message: string };

const SIMPLE: Readonly<Record<string, ConsoleCommand>> = {
  "/trace": { kind: "trace" },
  "/memory": { kind: "memory" },
  "/forget": { kind: "forget" },
  "/tools": { kind: "tools" },
  "/audit": { kind: "audit" },
  "/settings": { kind: "settings" },
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
  const simple = SIMPLE[command];
  if (simple) {
    return rest.length === 0 ? simple : { kind: "bad_command", message: `${command} takes nothing after it. Type /help for the commands.` };
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
