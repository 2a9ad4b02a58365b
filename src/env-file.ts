// `.env` in the working directory, read by every entry point (the bot, discord:register, audit,
// replay) before anything reads the environment. The values are dotenv's (quotes, escapes,
// comments); dotenv skips a line it can't read without a word, so each line is checked first
// and a bad one stops the start with its number. The environment wins over the file, and no
// file is fine. (Node 20's --env-file exits on a missing file and drops bad lines silently.)
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse } from "dotenv";
import { nameSlips } from "./env-names.js";

export const ENV_FILE = ".env";

export type EnvFileResult =
  | { readonly kind: "missing" }
  /** `warnings`: one line per name that looks like one of ours but is not (printed, and the start goes on). */
  | { readonly kind: "loaded"; readonly warnings: readonly string[] }
  /** `message` is the one line to print before exiting with code 1; it never quotes the line (it may hold a secret). */
  | { readonly kind: "invalid"; readonly message: string };

/** `NAME=`, `NAME =`, `export NAME=` or dotenv's `NAME: ` (a space after the colon). */
const ASSIGNMENT = /^\s*(?:export\s+)?[\w.-]+(?:\s*=|:\s)/;
const QUOTES = new Set(["'", '"', "`"]);

/** The first line dotenv would not read as it looks, with its 1-based number; undefined when every line is fine. Pure. */
export function checkEnvText(text: string): { readonly line: number; readonly problem: string } | undefined {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const assignment = ASSIGNMENT.exec(line);
    if (!assignment) return { line: index + 1, problem: "expected NAME=value" };
    const value = line.slice(assignment[0].length).trimStart();
    const quote = value.charAt(0);
    if (!QUOTES.has(quote) || closes(value.slice(1), quote)) continue;
    // A quoted value may go on over the next lines, up to its closing quote.
    const end = lines.findIndex((later, at) => at > index && closes(later, quote));
    if (end < 0) return { line: index + 1, problem: `the value's opening ${quote} is never closed` };
    index = end;
  }
  return undefined;
}

/** Whether `text` has `quote` not escaped by a backslash. */
function closes(text: string, quote: string): boolean {
  for (let at = text.indexOf(quote); at >= 0; at = text.indexOf(quote, at + 1)) if (text[at - 1] !== "\\") return true;
  return false;
}

/** Reads `path` (default ./.env) into `env`, leaving every name `env` already has. */
export function loadEnvFile(env: NodeJS.ProcessEnv = process.env, path: string = resolve(ENV_FILE)): EnvFileResult {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { kind: "missing" };
    return { kind: "invalid", message: `Configuration error: ${ENV_FILE} cannot be read (${code ?? String(error)})` };
  }
  const problem = checkEnvText(text);
  if (problem) return { kind: "invalid", message: `Configuration error: ${ENV_FILE} line ${problem.line}: ${problem.problem}` };
  const values = parse(text);
  for (const [name, value] of Object.entries(values)) if (env[name] === undefined) env[name] = value;
  const warnings = nameSlips(Object.keys(values)).map(
    ({ name, meant }) =>
      `Warning: ${ENV_FILE} line ${lineOf(text, name)}: ${name} is not a variable the bot reads; did you mean ${meant}? (it is ignored)`,
  );
  return { kind: "loaded", warnings };
}

/** The 1-based number of the last line that sets `name` (dotenv keeps the last). */
function lineOf(text: string, name: string): number {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const sets = new RegExp(`^\\s*(?:export\\s+)?${escaped}(?:\\s*=|:\\s)`);
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  for (let index = lines.length - 1; index >= 0; index--) if (sets.test(lines[index]!)) return index + 1;
  return 0;
}

/** For entry points: loads ./.env into process.env (a line for each name that looks mistyped), or prints the one line and exits with code 1. */
export function loadEnvFileOrExit(): void {
  const result = loadEnvFile();
  if (result.kind === "loaded") for (const warning of result.warnings) process.stderr.write(`${warning}\n`);
  if (result.kind !== "invalid") return;
  process.stderr.write(`${result.message}\n`);
  process.exit(1);
}
