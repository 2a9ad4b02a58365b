// Everything the console prints, as pure functions of what happened. Text that came from a
// model or a tool is untrusted: it is stripped of terminal control sequences before it is shown.
import { stripVTControlCharacters } from "node:util";
import { observationForPeople } from "../../contracts/observation-text.js";
import { shorten } from "../../contracts/trace-text.js";
import type { AgentEvent, CallRecord, GuardStop, PendingApproval } from "../../contracts/types.js";
import type { AnswerCard } from "../core/cards.js";
import { originNotes } from "../core/origin-lines.js";
import { COMMANDS } from "../core/commands.js";

export type ModelDescription =
  | { readonly kind: "demo" /** OPENAI_BASE_URL was set without OPENAI_API_KEY, so it is not used. */; readonly unusedBaseUrl?: string }
  | { readonly kind: "remote"; readonly name: string; readonly baseUrl?: string };

const ARGS_PREVIEW_CHARS = 80;
const RESULT_PREVIEW_CHARS = 120;
const APPROVAL_ARGS_CHARS = 1_200;
const APPROVAL_ARGS_LINES = 24;

const NOT_OK: Record<Exclude<CallRecord["outcome"], "ok">, string> = {
  error: "error",
  invalid_args: "invalid arguments",
  unknown_tool: "unknown tool",
  timeout: "timed out",
  repeated: "repeat, not run",
  denied: "denied, not run",
  needs_approval: "waiting for approval",
  blocked: "not run, stopped by a guard",
};

/** Only these outcomes carry a message worth showing after their label. */
const SHOWS_RESULT = new Set<CallRecord["outcome"]>(["ok", "error", "invalid_args", "unknown_tool", "timeout"]);

/** Terminal-safe text: escape sequences and control characters other than newline and tab are removed. */
export function clean(text: string): string {
  return stripVTControlCharacters(text).replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "");
}

const ECHO_CHARS = 200;

/** A line shown back (typed ahead, or from a pipe): its start, and how much more there was. */
export function echoText(line: string): string {
  const shown = clean(line);
  const rows = shown.split("\n");
  if (rows.length === 1 && shown.length <= ECHO_CHARS) return shown;
  const more = rows.length > 1 ? `${rows.length} lines, ${shown.length} characters` : `${shown.length} characters`;
  return `${shorten(rows[0] ?? "", ECHO_CHARS)} … (${more})`;
}

/** An operator's notice, marked apart from the conversation. */
export function noticeText(text: string): string {
  return `! ${clean(text)}`;
}

export function continuingText(turns: number): string {
  return `Continuing your conversation (${turns} earlier ${turns === 1 ? "turn" : "turns"}); /new starts a fresh one.`;
}

export function startOverText(turns: number): string {
  return turns === 0
    ? "This is a fresh conversation already."
    : `A fresh conversation: the ${turns} earlier ${turns === 1 ? "turn is" : "turns are"} left behind. What I remember (/memory) stays; /forget clears it.`;
}

const OWN_BEFORE = [
  "  /new                start a fresh conversation (the earlier turns are left behind; /forget clears facts too)",
  "  /trace              the steps of the last run",
  "  /attach PATH [text] ask about a file on this machine (quote a PATH with spaces)",
];
/** Only the offline demo model loops when asked to. */
const DEMO = [
  "  /demo loop [text]   watch a guard stop a model that keeps repeating itself",
  "  /demo write [note]  watch a write wait for your approval (it adds the note to data/demo-notes.txt)",
];
const OWN_AFTER = ["  /help               this list", "  /quit               leave (Ctrl-D works too)"];

export function helpText(model: ModelDescription): string {
  const core = COMMANDS.map((command) => `  /${command.name.padEnd(18)} ${command.summary}`);
  const demo = model.kind === "demo" ? DEMO : [];
  return ["Type a question, or one of these commands:", ...OWN_BEFORE, ...core, ...demo, ...OWN_AFTER].join("\n");
}

/** `/demo loop` with a real model: the demo is a run of the offline demo model, which this console does not use. */
export function demoLoopText(model: Extract<ModelDescription, { kind: "remote" }>): string {
  return `/demo loop is a run of the offline demo model, and this console asks ${clean(model.name)}: start it without OPENAI_API_KEY to watch a guard stop a model that keeps repeating itself.`;
}

/** `/demo write` with a real model: the demo's note tool is given only to the offline demo model. */
export function demoWriteText(model: Extract<ModelDescription, { kind: "remote" }>): string {
  return `/demo write is a run of the offline demo model, and this console asks ${clean(model.name)}: start it without OPENAI_API_KEY to watch a write wait for your approval.`;
}

/** Paragraphs are wrapped to `width`, so the banner reads well in a narrow terminal and in a pipe alike. */
export function bannerText(model: ModelDescription, width: number): string {
  const paragraphs = ["Guarded agent · console mode (no Slack or Discord tokens are set)"];
  if (model.kind === "remote") {
    paragraphs.push(`Model: ${model.name}, ${model.baseUrl ? `at ${model.baseUrl}` : "on the OpenAI API"}.`);
  } else {
    paragraphs.push(
      'Model: OFFLINE DEMO (no OPENAI_API_KEY is set). It answers simple arithmetic and time questions through the real tools, e.g. "what is (3+4)*5" or "what time is it in Tokyo". ' +
        "Anything else needs a real model: set OPENAI_API_KEY, and OPENAI_BASE_URL for Ollama, vLLM, llama.cpp, LM Studio or OpenRouter.",
    );
    if (model.unusedBaseUrl) {
      paragraphs.push(
        `OPENAI_BASE_URL (${model.unusedBaseUrl}) is not used without a key; local servers accept any key, e.g. OPENAI_API_KEY=local.`,
      );
    }
  }
  return wrap([...paragraphs, "", helpText(model), ""].join("\n"), width);
}

function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function callLine(step: number, call: CallRecord): string {
  const title = `${call.tool}(${shorten(clean(call.args), ARGS_PREVIEW_CHARS)})`;
  const result = firstLine(call.outcome === "ok" ? call.result : observationForPeople(call.result));
  const shown =
    call.outcome === "ok" ? result : SHOWS_RESULT.has(call.outcome) && result ? `${NOT_OK[call.outcome]}: ${result}` : NOT_OK[call.outcome];
  return `  · step ${step}: ${clean(title)} → ${shown} (${duration(call.durationMs)})`;
}

/** The first non-empty line, shortened, with a mark when more followed. */
function firstLine(text: string): string {
  const lines = clean(text)
    .split("\n")
    .filter((line) => line.trim() !== "");
  const first = shorten(lines[0] ?? "", RESULT_PREVIEW_CHARS);
  return lines.length > 1 && !first.endsWith("…") ? `${first} …` : first;
}

/** A line that stays on screen, for the events worth one. */
export function progressLine(event: AgentEvent): string | undefined {
  switch (event.type) {
    case "tool_result":
      return callLine(event.step, event.call);
    case "folded":
      return `  · context getting full: folded ${event.messages} old tool results (${event.tokensBefore} → ${event.tokensAfter} tokens)`;
    case "compacted":
      return `  · context getting full: compacted older steps into a summary (${event.tokensBefore} → ${event.tokensAfter} tokens)`;
    case "model_retrying":
      return `  · model not answering, retry ${event.retry} of ${event.of} in ${duration(event.waitMs)}: ${clean(event.cause)}`;
    default:
      return undefined;
  }
}

/** What is going on right now, for a status line that the next line replaces (terminals only). */
export function statusText(event: AgentEvent): string | undefined {
  switch (event.type) {
    case "step_started":
      return `  … step ${event.step}: waiting for the model`;
    case "tool_called":
      return `  … step ${event.step}: running ${clean(event.call.name)}`;
    case "tool_progress":
      return `  … step ${event.step}: running ${clean(event.call.name)}: ${clean(event.detail).slice(0, 120)}`;
    case "guard_tripped":
      return "  … stopped by a guard; writing a summary";
    default:
      return undefined;
  }
}

function prettyArgs(args: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(args, null, 2) ?? String(args);
  } catch {
    text = String(args);
  }
  let lines = clean(text).split("\n");
  const cut = lines.length > APPROVAL_ARGS_LINES || text.length > APPROVAL_ARGS_CHARS;
  lines = lines.slice(0, APPROVAL_ARGS_LINES);
  let shown = lines.join("\n");
  if (shown.length > APPROVAL_ARGS_CHARS) shown = shown.slice(0, APPROVAL_ARGS_CHARS);
  return cut ? `${shown}\n… (cut; the full arguments are in /trace)` : shown;
}

/** The warning and origin lines under the request's first line, or nothing. */
function originText(pending: PendingApproval): string {
  const notes = originNotes(pending);
  if (!notes) return "";
  return [`    ! ${clean(notes.warning)}`, ...notes.lines.map((line) => `      - ${clean(line)}`), ""].join("\n");
}

export function approvalRequest(pending: PendingApproval): string {
  const args = prettyArgs(pending.args).replace(/^/gm, "      ");
  const source = pending.source ? `    (${clean(pending.source)})\n` : "";
  return `  ? ${clean(pending.tool)} needs your approval before it runs. It would run with:\n${source}${originText(pending)}${args}`;
}

/** A /help row: two spaces, the command and its padding up to the description's column. */
const HELP_COLUMN = 22;
const HELP_ROW = new RegExp(`^ {2}/\\S.{${HELP_COLUMN - 5}}\\s(?=\\S)`);
/** Narrower than this beside the column, a help row wraps like any line. */
const MIN_HELP_TEXT = 24;

/** Indentation and a list mark: continuation lines start under the text after them. */
const LEAD = /^\s*(?:[·•✓✗→-] )?/;

/**
 * Breaks lines longer than `width` at spaces, so a terminal does not cut words in two;
 * continuation lines hang under the line's text. A word longer than a line stays whole.
 */
export function wrap(text: string, width: number): string {
  return text
    .split("\n")
    .map((line) => {
      if (line.length <= width) return line;
      // A row of /help: continuation lines hang under the description, not under the command.
      const help = HELP_ROW.exec(line);
      const lead = help && width - HELP_COLUMN >= MIN_HELP_TEXT ? help[0] : LEAD.exec(line)![0];
      const hang = " ".repeat(lead.length);
      const rows: string[] = [];
      let row = "";
      // Each piece is a word with the spaces after it, so spacing inside a row stays as written.
      for (const piece of line.slice(lead.length).match(/\S+\s*/g) ?? []) {
        if (row !== "" && lead.length + (row + piece).trimEnd().length > width) {
          rows.push(row.trimEnd());
          row = piece;
        } else {
          row += piece;
        }
      }
      rows.push(row.trimEnd());
      return rows.map((part, index) => (index === 0 ? lead : hang) + part).join("\n");
    })
    .join("\n");
}

/** The answer, and the sentence of the guard that stopped the run on a line of its own. */
export function answerText(card: Pick<AnswerCard, "answer" | "stop">): string {
  const answer = clean(card.answer);
  return card.stop ? `${answer}\n${stopLine(card.stop)}` : answer;
}

/** The sentence of the guard that stopped the run, as the line under its answer. */
export function stopLine(stop: GuardStop): string {
  return `(${stop.sentence})`;
}

/** An approval that expired; its run's summary follows. `tool` is unknown for one a stopped process asked for. */
export function expiredText(tool: string | undefined): string {
  return `Nobody approved ${tool === undefined ? "the write" : clean(tool)} in time, so it did not run.`;
}

/** The private Connect link of a run that waits for the person to connect an MCP server. */
export function connectLine(connect: NonNullable<PendingApproval["connect"]>): string {
  return connect.url
    ? `Connect ${connect.server}: ${connect.url}`
    : `Connect ${connect.server}: the link could not be made (see the log); ask again in a moment.`;
}
