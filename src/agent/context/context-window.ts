// Keeping a run inside the model's context window: folding old tool results in place
// (yellow) and compacting older turns into a state snapshot with one model call (orange).
import type { TokenCounter } from "../../tokens/token-counter.js";
import { contentText } from "../content.js";
import type { CallOutcome, ChatMessage, Model, TokenUsage } from "../../contracts/types.js";
import { asData, dataInside, holdsData, withinBlock } from "./data-blocks.js";

/** The newest messages are never folded or compacted: the model is working with them. */
const KEEP_RECENT_MESSAGES = 4;
/** The turns of earlier runs right before the question stay word for word: follow-ups refer to them. */
const KEEP_HISTORY_TURNS = 2;
const FOLD_MIN_CHARS = 200;
const FOLD_PREVIEW_CHARS = 80;
const COMPACTION_TIMEOUT_MS = 30_000;

function firstLine(text: string): string {
  const line = text.trim().split("\n", 1)[0] ?? "";
  return line.length <= FOLD_PREVIEW_CHARS ? line : `${line.slice(0, FOLD_PREVIEW_CHARS - 1)}…`;
}

function isFolded(message: ChatMessage): boolean {
  return message.role === "tool" && message.content.startsWith("[folded:");
}

/**
 * Replaces long tool results older than the last KEEP_RECENT_MESSAGES messages with a one-line
 * marker (original length, first line, ok/error). Returns the same array when nothing changed.
 */
export function foldOldToolResults(
  messages: readonly ChatMessage[],
  outcomeOf: (callId: string) => CallOutcome | undefined,
): { messages: readonly ChatMessage[]; folded: number } {
  const boundary = messages.length - KEEP_RECENT_MESSAGES;
  let folded = 0;
  const next = messages.map((message, index) => {
    if (index >= boundary || message.role !== "tool" || isFolded(message) || message.content.length < FOLD_MIN_CHARS) return message;
    folded++;
    const status = outcomeOf(message.toolCallId) === "ok" ? "ok" : "error";
    const note = `[folded: ${message.content.length.toLocaleString("en-US")} chars, ${status}]`;
    // A result that was data stays data: its first line goes back in its own block, not beside the note.
    const preview = withinBlock(message.content, firstLine);
    return {
      role: "tool" as const,
      toolCallId: message.toolCallId,
      content: preview === undefined ? `${note} ${firstLine(message.content)}` : `${note}\n${preview}`,
    };
  });
  return folded === 0 ? { messages, folded } : { messages: next, folded };
}

interface Split {
  readonly prefix: readonly ChatMessage[];
  readonly middle: readonly ChatMessage[];
  /** The latest history turns before the question, kept as they are. */
  readonly history: readonly ChatMessage[];
  /** The question, and the run's note (time, facts) right before it when there is one. */
  readonly question: readonly ChatMessage[];
  readonly tail: readonly ChatMessage[];
}

const isHistoryTurnMessage = (message: ChatMessage | undefined) =>
  message !== undefined && (message.role === "user" || (message.role === "assistant" && !message.toolCalls?.length));

/** Leading system messages, the part to compact, the latest history turns, the person's latest question, and the recent tail. */
function split(messages: readonly ChatMessage[]): Split {
  let prefixEnd = 0;
  while (prefixEnd < messages.length && messages[prefixEnd]!.role === "system") prefixEnd++;
  // The tail must not start with tool results whose assistant call would be compacted away.
  let tailStart = Math.max(prefixEnd, messages.length - KEEP_RECENT_MESSAGES);
  while (tailStart > prefixEnd && messages[tailStart]?.role === "tool") tailStart--;
  let questionIndex = -1;
  for (let index = tailStart - 1; index >= prefixEnd; index--) {
    if (messages[index]!.role === "user") {
      questionIndex = index;
      break;
    }
  }
  // The run's note (a system message right before the question) stays with the question.
  const noted = questionIndex > prefixEnd && messages[questionIndex - 1]!.role === "system";
  const questionStart = noted ? questionIndex - 1 : questionIndex;
  let historyStart = questionStart;
  while (
    historyStart > prefixEnd &&
    questionStart - historyStart < 2 * KEEP_HISTORY_TURNS &&
    isHistoryTurnMessage(messages[historyStart - 1])
  )
    historyStart--;
  const kept = (index: number) => index >= historyStart && index <= questionIndex;
  const middle = messages.slice(prefixEnd, tailStart).filter((_, offset) => !kept(prefixEnd + offset));
  return {
    prefix: messages.slice(0, prefixEnd),
    middle,
    history: questionIndex >= 0 ? messages.slice(historyStart, questionStart) : [],
    question: questionIndex >= 0 ? messages.slice(questionStart, questionIndex + 1) : [],
    tail: messages.slice(tailStart),
  };
}

function transcript(messages: readonly ChatMessage[]): string {
  return messages
    .map((message) => {
      if (message.role === "assistant") {
        const calls = (message.toolCalls ?? []).map((call) => `call ${call.name}(${call.arguments})`).join("; ");
        return `assistant: ${[message.content ?? "", calls].filter(Boolean).join(" | ")}`;
      }
      if (message.role === "tool") return `result: ${message.content}`;
      return `${message.role}: ${contentText(message.content)}`;
    })
    .join("\n");
}

const COMPACTION_PROMPT =
  "You compress an AI agent's working memory. Rewrite the transcript below as a short state snapshot with three headings: " +
  "Facts found (with the concrete values), Calls tried (tool, arguments, outcome), Still to do. Keep every number, name and id that matters. No preamble.";

/**
 * The snapshot as the model reads it: made from data (another person's message, a tool's result…),
 * it may repeat instructions written there, so it is data too, under the run's `boundary`.
 */
function snapshotMessage(body: string, compacted: readonly ChatMessage[], boundary: string | undefined): ChatMessage {
  const heading = "State snapshot of the earlier conversation and steps (compacted to save context):";
  const fromData = boundary !== undefined && compacted.some((message) => holdsData(contentText(message.content), boundary));
  const text = fromData ? asData(body, { kind: "derived", from: "steps" }, boundary) : body;
  return { role: "system", content: `${heading}\n${text}` };
}

/**
 * Compacts everything between the system prompt and the recent tail into one snapshot message.
 * Uses one model call; if that fails, falls back to a mechanical digest so the run can go on.
 * Returns undefined when there is nothing old enough to compact.
 */
export async function compactOlderTurns(
  messages: readonly ChatMessage[],
  model: Model,
  counter: TokenCounter,
  maxInputTokens: number,
  signal: AbortSignal,
  /** The run's data-block boundary: a snapshot of data stays data. */
  boundary?: string,
): Promise<{ messages: readonly ChatMessage[]; usage?: TokenUsage } | undefined> {
  const parts = split(messages);
  if (parts.middle.length === 0) return undefined;
  const source = (await counter.truncateYielding(transcript(parts.middle), maxInputTokens)).text;
  let snapshot: string | undefined;
  let usage: TokenUsage | undefined;
  try {
    const reply = await model.complete(
      {
        messages: [
          { role: "system", content: COMPACTION_PROMPT },
          { role: "user", content: source },
        ],
        tools: [],
      },
      AbortSignal.any([signal, AbortSignal.timeout(COMPACTION_TIMEOUT_MS)]),
    );
    usage = reply.usage;
    if (reply.toolCalls.length === 0 && reply.content?.trim()) snapshot = reply.content.trim();
  } catch {
    snapshot = undefined;
  }
  const body = snapshot ?? mechanicalDigest(parts.middle);
  return {
    messages: [...parts.prefix, snapshotMessage(body, parts.middle, boundary), ...parts.history, ...parts.question, ...parts.tail],
    ...(usage ? { usage } : {}),
  };
}

function mechanicalDigest(messages: readonly ChatMessage[]): string {
  return messages
    .map((message) => {
      if (message.role === "assistant")
        return (message.toolCalls ?? []).map((call) => `- called ${call.name}(${firstLine(call.arguments)})`).join("\n");
      // The words, not a block's opening line: the digest as a whole is data when any of them was.
      if (message.role === "tool") return `  → ${firstLine(dataInside(message.content))}`;
      return `- ${message.role}: ${firstLine(dataInside(contentText(message.content)))}`;
    })
    .filter(Boolean)
    .join("\n");
}
