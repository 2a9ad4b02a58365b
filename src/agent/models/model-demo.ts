// The offline demo model, for console mode without OPENAI_API_KEY. It works through the real
// tools so a newcomer sees the loop, the trace and the guards without any server: it answers
// arithmetic and time questions, and a question that starts with `/demo loop` (the console's
// command) makes it repeat one call until a guard stops it, in a run like any other; one that
// starts with `/demo write` (or asks to save a note) makes it call the demo's one write tool,
// `save_note`, so the approval shows with nothing set up. It reads only what the person wrote:
// the notes the product adds to a question (a schedule's slot note) are not arithmetic. Asked for
// pieces (onDelta), it streams its reply word by word, so the console shows the streamed path.
// Contract: deterministic (the reply depends only on the request) and never throw.
import { observationForPeople } from "../../contracts/observation-text.js";
import { shorten } from "../../contracts/trace-text.js";
import { toldAsStream, wordByWord } from "./reply-deltas.js";
import { DEMO_NOTE_TOOL } from "../tools/demo-note.js";
import type { ChatMessage, Model, ModelReply, ModelRequest, ToolCall, UserContent } from "../../contracts/types.js";

interface PlannedCall {
  readonly name: "calculator" | "current_time" | typeof DEMO_NOTE_TOOL;
  readonly args: Readonly<Record<string, string>>;
}

/** The latest question and what was called and returned since it was asked. */
interface Turn {
  readonly question: string;
  /** Names of the files attached to the question: the demo model reads none of them. */
  readonly files: readonly string[];
  readonly calls: readonly ToolCall[];
  readonly results: ReadonlyMap<string, string>;
}

const HONEST_ANSWER =
  'I am the offline demo model: I can only do arithmetic (try "what is (3+4)*5") and tell the time ' +
  '(try "what time is it in Tokyo"), through my tools. Anything else needs a real model: set OPENAI_API_KEY, ' +
  "and OPENAI_BASE_URL for a local OpenAI-compatible server such as Ollama.";

const CITY_ZONES: Readonly<Record<string, string>> = {
  london: "Europe/London",
  paris: "Europe/Paris",
  berlin: "Europe/Berlin",
  madrid: "Europe/Madrid",
  rome: "Europe/Rome",
  amsterdam: "Europe/Amsterdam",
  "new york": "America/New_York",
  chicago: "America/Chicago",
  "los angeles": "America/Los_Angeles",
  "san francisco": "America/Los_Angeles",
  toronto: "America/Toronto",
  "sao paulo": "America/Sao_Paulo",
  tokyo: "Asia/Tokyo",
  beijing: "Asia/Shanghai",
  shanghai: "Asia/Shanghai",
  singapore: "Asia/Singapore",
  delhi: "Asia/Kolkata",
  mumbai: "Asia/Kolkata",
  dubai: "Asia/Dubai",
  sydney: "Australia/Sydney",
};

const ARITHMETIC_RUN = /[\d.+\-*/%^()\s]+/g;
const HAS_OPERATION = /\d[\s)]*(?:\*\*|[+\-*/%^])[\s(]*[-+]?\s*\.?\d/;
const DATE_LIKE = /^\d{4}-\d{1,2}-\d{1,2}$/;
const ASKS_TIME = /\b(time|date|today|clock)\b|\bwhat day\b/i;
const IANA_ZONE = /\b((?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)\/[A-Za-z_]+(?:\/[A-Za-z_]+)?)\b/i;

/** A question that starts with this makes the demo model keep making the same call, so a guard has something to stop. */
export const LOOP_REQUEST = "/demo loop";

/** A question that starts with this makes the demo model save the rest as a note: a write, which waits for approval. */
export const WRITE_REQUEST = "/demo write";
/** "save a note: …", "write a note …", "take a note …" in the person's words. */
const ASKS_NOTE = /\b(?:save|write|take|make|add)\s+(?:a\s+|this\s+|the\s+)?note\b[\s:,-]*(.*)$/is;
const DEFAULT_NOTE = "Hello from the offline demo.";
/** A paragraph wholly in brackets is a note the product added to the question (a schedule's slot note), not the person's words. */
const PRODUCT_NOTE = /^\([\s\S]*\)$/;

/** The call a loop request repeats. */
const LOOPED_CALL: PlannedCall = { name: "current_time", args: { timezone: "UTC" } };

export function createDemoModel(): Model {
  return {
    name: "offline-demo",
    complete: async (request) => toldAsStream(demoReply(request), request.onDelta, wordByWord),
  };
}

function demoReply(request: ModelRequest): ModelReply {
  const looping = latestQuestion(request.messages).trimStart().toLowerCase().startsWith(LOOP_REQUEST);
  if (request.tools.length === 0) return text(looping ? loopSummary(request.messages) : summaryOf(request.messages));
  const turn = currentTurn(request.messages);
  const offered = new Set(request.tools.map((tool) => tool.name));
  if (looping && offered.has(LOOPED_CALL.name)) return toolCall(request.messages, LOOPED_CALL);
  const plan = planFor(turn.question).filter((step) => offered.has(step.name));
  if (plan.length === 0) return text(turn.files.length > 0 ? `${unreadFiles(turn.files)} ${HONEST_ANSWER}` : HONEST_ANSWER);
  const next = plan[turn.calls.length];
  if (next) return toolCall(request.messages, next);
  return text(answerFrom(turn));
}

/** A loop request's summary: what the first call found (or what came back instead: a denial, an error), and that the repeats were why it was stopped. */
function loopSummary(messages: readonly ChatMessage[]): string {
  const { calls: made, results } = callsAndResults(messages);
  const first = [...results.values()][0];
  const found =
    first === undefined
      ? "I tried to look up the current time."
      : first.includes("ISO 8601")
        ? `I looked up the current time: ${firstLine(first)}.`
        : `I tried to look up the current time and got: ${firstLine(observationForPeople(first))}`;
  const calls = made.length;
  return (
    `${found} Then I kept making the same current_time call with the same arguments (${calls} ${calls === 1 ? "call" : "calls"} in all) ` +
    "instead of answering, so I was stopped. Nothing new came from the repeats; the time above is all I found."
  );
}

function planFor(question: string): PlannedCall[] {
  const note = noteIn(question);
  if (note !== undefined) return [{ name: DEMO_NOTE_TOOL, args: { text: note } }];
  const plan: PlannedCall[] = findExpressions(question).map((expression) => ({ name: "calculator", args: { expression } }));
  if (ASKS_TIME.test(question)) {
    const timezone = zoneIn(question);
    plan.push({ name: "current_time", args: timezone ? { timezone } : {} });
  }
  return plan;
}

/** The note asked for (the default one when none is given), or undefined when the question asks for none. */
function noteIn(question: string): string | undefined {
  const trimmed = question.trim();
  if (trimmed.toLowerCase().startsWith(WRITE_REQUEST)) return trimmed.slice(WRITE_REQUEST.length).trim() || DEFAULT_NOTE;
  const asked = ASKS_NOTE.exec(trimmed);
  return asked ? asked[1]!.trim() || DEFAULT_NOTE : undefined;
}

function findExpressions(text: string): string[] {
  return (text.match(ARITHMETIC_RUN) ?? []).map(tidy).filter((candidate) => HAS_OPERATION.test(candidate) && !DATE_LIKE.test(candidate));
}

/** Drops what a sentence puts around an expression: dangling operators, a full stop, unmatched brackets. */
function tidy(run: string): string {
  let expression = run
    .trim()
    .replace(/^[\s*/%^)]+/, "")
    .replace(/[\s+\-*/%^(.]+$/, "");
  const count = (char: string) => expression.split(char).length - 1;
  while (count("(") > count(")") && expression.startsWith("(")) expression = expression.slice(1).trimStart();
  while (count(")") > count("(") && expression.endsWith(")")) expression = expression.slice(0, -1).trimEnd();
  return expression;
}

function zoneIn(question: string): string | undefined {
  const iana = IANA_ZONE.exec(question);
  if (iana) return iana[1];
  if (/\b(utc|gmt)\b/i.test(question)) return "UTC";
  const lower = question.toLowerCase().replace(/ã/g, "a");
  const city = Object.keys(CITY_ZONES).find((name) => new RegExp(`\\b${name}\\b`).test(lower));
  return city ? CITY_ZONES[city] : undefined;
}

function currentTurn(messages: readonly ChatMessage[]): Turn {
  let lastUser = messages.length - 1;
  while (lastUser >= 0 && messages[lastUser]!.role !== "user") lastUser -= 1;
  const since = messages.slice(lastUser + 1);
  return {
    question: lastUser >= 0 ? questionText(messages[lastUser]!.content) : "",
    files: lastUser >= 0 ? attachedNames(messages[lastUser]!.content) : [],
    calls: allCalls(since),
    results: resultsById(since),
  };
}

/** The summary request carries tool results and notes as user text that starts with these marks (summary.ts's asText). */
const NOT_A_QUESTION = /^\[(?:tool result \S+|note)\]/;

/** The person's latest message, also in a summary request (where tool results and notes are user text too). */
function latestQuestion(messages: readonly ChatMessage[]): string {
  for (let at = messages.length - 1; at >= 0; at -= 1) {
    const message = messages[at]!;
    if (message.role !== "user") continue;
    const question = questionText(message.content);
    if (!NOT_A_QUESTION.test(question)) return question;
  }
  return "";
}

/** The words the person typed: a file's text is not a question (a CSV full of "3-4" must not start the calculator), nor a note the product added. */
function questionText(content: UserContent | null): string {
  const text =
    content === null || typeof content === "string"
      ? (content ?? "")
      : content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
  return personsWords(text);
}

/** `text` without the paragraphs the product adds in brackets (a schedule's slot note and the like). */
export function personsWords(text: string): string {
  return text
    .split(/\n\s*\n/)
    .filter((paragraph) => !PRODUCT_NOTE.test(paragraph.trim()))
    .join("\n\n");
}

function attachedNames(content: UserContent | null): string[] {
  if (content === null || typeof content === "string") return [];
  return content.flatMap((part) => (part.type === "text" ? [] : [part.file.name]));
}

function unreadFiles(names: readonly string[]): string {
  const listed = names.map((name) => `"${name}"`).join(", ");
  return `I can't read attached files or see images (${listed}).`;
}

function allCalls(messages: readonly ChatMessage[]): ToolCall[] {
  return messages.flatMap((message) => (message.role === "assistant" ? (message.toolCalls ?? []) : []));
}

function resultsById(messages: readonly ChatMessage[]): Map<string, string> {
  return new Map(messages.flatMap((message) => (message.role === "tool" ? [[message.toolCallId, message.content] as const] : [])));
}

function answerFrom(turn: Turn): string {
  return turn.calls.map((call) => describeOutcome(call, turn.results.get(call.id))).join("\n");
}

function describeOutcome(call: ToolCall, result: string | undefined): string {
  const args = parseArgs(call.arguments);
  if (result === undefined) return `I got no result for ${call.name}.`;
  if (call.name === "calculator") {
    const expression = shorten(args.expression ?? call.arguments, EXPRESSION_SHOWN);
    return /^-?[\d.]+(e[+-]\d+)?$/.test(result.trim())
      ? `${expression} = ${result.trim()}`
      : `I could not work out ${expression}: ${firstLine(observationForPeople(result))}`;
  }
  if (call.name === DEMO_NOTE_TOOL) {
    if (result.startsWith("Saved to ")) return sentence(firstLine(result));
    const denied = /^Denied by ([^:]+):/.exec(result);
    return denied
      ? `I did not save the note: ${denied[1]} did not approve it.`
      : `I could not save the note: ${firstLine(observationForPeople(result))}`;
  }
  if (call.name === "current_time") {
    return result.includes("ISO 8601") ? `It is now ${firstLine(result)}.` : `I could not read the time: ${firstLine(result)}`;
  }
  return `${call.name}: ${firstLine(result)}`;
}

/** The summary request carries calls and results as text (see flattenForSummary in summary.ts): read them back too. */
function callsAndResults(messages: readonly ChatMessage[]): { readonly calls: ToolCall[]; readonly results: Map<string, string> } {
  const calls = allCalls(messages);
  const results = resultsById(messages);
  for (const message of messages) {
    if (typeof message.content !== "string" || message.role === "tool") continue;
    for (const [, name, args, id] of message.content.matchAll(FLAT_CALL)) calls.push({ id: id!, name: name!, arguments: args! });
    for (const [, id, content] of message.content.matchAll(FLAT_RESULT)) results.set(id!, content!);
  }
  return { calls, results };
}

const FLAT_CALL = /\[called ([\w-]+)\((.*)\) as ([^\]\s]+)\]/g;
const FLAT_RESULT = /\[tool result ([^\]\s]+)\]\n([\s\S]*?)(?=\n\n\[|$)/g;

function summaryOf(messages: readonly ChatMessage[]): string {
  const { calls, results } = callsAndResults(messages);
  const lines = calls
    .filter((call) => results.has(call.id))
    .slice(-10)
    .map((call) => `- ${call.name} ${describeArgs(call)}: ${firstLine(results.get(call.id) ?? "")}`);
  if (lines.length === 0) return "Summary from the offline demo model: I made no tool calls, so I found nothing yet.";
  return `Summary from the offline demo model. What I found:\n${lines.join("\n")}`;
}

function describeArgs(call: ToolCall): string {
  const args = parseArgs(call.arguments);
  if (call.name === "calculator" && args.expression !== undefined) return args.expression;
  if (call.name === "current_time") return args.timezone ?? "UTC";
  return call.arguments.slice(0, 80);
}

/** String-valued fields of a JSON object; anything else reads as no arguments. */
function parseArgs(raw: string): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== "object" || parsed === null) return {};
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  } catch {
    return {};
  }
}

/** A long question is not echoed back whole. */
const EXPRESSION_SHOWN = 80;

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** A line that ends its own sentence (the person's note may) gets no second full stop. */
function sentence(line: string): string {
  return /[.!?…]$/.test(line) ? line : `${line}.`;
}

function text(content: string): ModelReply {
  return { content, toolCalls: [] };
}

/** Ids count every call in the conversation so far, so they stay unique within it. */
function toolCall(messages: readonly ChatMessage[], planned: PlannedCall): ModelReply {
  const id = `demo_${allCalls(messages).length + 1}`;
  return { content: null, toolCalls: [{ id, name: planned.name, arguments: JSON.stringify(planned.args) }] };
}
