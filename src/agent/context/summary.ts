// When a guard stops a run the person still gets an answer: one last model call with no tools
// offered, and, if that fails too, a reply built from the steps without the model.
import { joinContent } from "../content.js";
import { shorten } from "../../contracts/trace-text.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import type { ChatMessage, GuardStop, Model, StepRecord, TokenUsage } from "../../contracts/types.js";
import { asData, dataInside } from "./data-blocks.js";

const SUMMARY_TIMEOUT_MS = 20_000;
/** After a deadline the model may be the thing that hangs: the summary gets this much, or half the run's limit if that is less. */
const SUMMARY_AFTER_DEADLINE_MS = 2_000;
const FALLBACK_STEPS_SHOWN = 12;
const FLATTEN_OVERHEAD_TOKENS = 12;

/**
 * How long the summary call may take: what is left of the run's time, but at least a short
 * grace (a run stopped by its deadline has none left) and never more than SUMMARY_TIMEOUT_MS.
 */
export function summaryTimeoutMs(runTimeoutMs: number, remainingMs: number): number {
  return Math.min(SUMMARY_TIMEOUT_MS, Math.max(remainingMs, Math.min(SUMMARY_AFTER_DEADLINE_MS, runTimeoutMs / 2)));
}

export interface SummaryInput {
  readonly messages: readonly ChatMessage[];
  readonly steps: readonly StepRecord[];
  readonly question: string;
  readonly stop: GuardStop;
  /** Tokens the request may use (context window minus the output reserve). */
  readonly budget: number;
  /** The run's data-block boundary: the digest of the steps, made from tool results, reaches the model as data under it. */
  readonly boundary: string;
}

function summaryNote(stop: GuardStop): ChatMessage {
  return {
    role: "user",
    content:
      `The run was stopped by a guard (${stop.guard}: ${stop.detail}). You cannot call tools any more. ` +
      "Write the reply to the person now, in their language: what you found (with the concrete results), " +
      "what you tried, and what is still missing or uncertain. Be honest and brief; do not invent results you did not get.",
  };
}

/** A compact account of the steps, for when the full messages would not fit. */
function stepDigest(steps: readonly StepRecord[]): string {
  const lines: string[] = [];
  for (const step of steps) {
    for (const call of step.calls)
      lines.push(`- ${call.tool}(${shorten(call.args, 60)}) → ${call.outcome}: ${shorten(dataInside(call.observation), 160)}`);
    if (step.calls.length === 0 && step.text) lines.push(`- said: ${shorten(step.text, 160)}`);
  }
  return lines.join("\n") || "- no tool was called";
}

/** A tool call or result as plain text: the summary request offers no tools, and strict servers refuse calls to tools not offered. */
function asText(message: ChatMessage): ChatMessage {
  if (message.role === "tool") return { role: "user", content: `[tool result ${message.toolCallId}]\n${message.content}` };
  if (message.role === "assistant" && message.toolCalls && message.toolCalls.length > 0) {
    const calls = message.toolCalls.map((call) => `[called ${call.name}(${call.arguments}) as ${call.id}]`);
    return { role: "assistant", content: [message.content ?? "", ...calls].filter(Boolean).join("\n") };
  }
  if (message.role === "system") return { role: "user", content: `[note] ${message.content}` };
  return message;
}

/**
 * The request as strict OpenAI-compatible servers and chat templates accept it: system messages
 * only at the start, no tool calls, roles alternating, and a user message last.
 */
export function flattenForSummary(messages: readonly ChatMessage[]): ChatMessage[] {
  let start = 0;
  while (start < messages.length && messages[start]!.role === "system") start++;
  const out: ChatMessage[] = messages.slice(0, start).map((message) => ({ ...message }));
  for (const message of messages.slice(start).map(asText)) {
    const last = out[out.length - 1];
    if (last && last.role === message.role && last.role !== "system") {
      out[out.length - 1] = { role: last.role, content: joinContent(last.content ?? "", message.content ?? "") } as ChatMessage;
    } else {
      out.push(message);
    }
  }
  return out;
}

async function summaryMessages(input: SummaryInput, counter: TokenCounter): Promise<ChatMessage[]> {
  const note = summaryNote(input.stop);
  // The run's messages are counted already; flattening adds a few marker tokens per message.
  const estimate = counter.countMessages(input.messages) + counter.countMessage(note) + FLATTEN_OVERHEAD_TOKENS * input.messages.length;
  if (estimate <= input.budget) return flattenForSummary([...input.messages, note]);
  const system = input.messages.find((message) => message.role === "system");
  const digest = (await counter.truncateYielding(stepDigest(input.steps), Math.floor(input.budget / 2))).text;
  const question = (await counter.truncateYielding(input.question, Math.floor(input.budget / 4))).text;
  const steps = asData(digest, { kind: "derived", from: "steps" }, input.boundary);
  return flattenForSummary([
    ...(system ? [system] : []),
    { role: "user", content: `${question}\n\nWhat the agent did before it was stopped:\n${steps}` },
    note,
  ]);
}

/** The reply written without the model: the calls made and how they went. */
function fallbackSummary(steps: readonly StepRecord[], stop: GuardStop, question: string): string {
  const calls = steps.flatMap((step) => step.calls);
  if (calls.length === 0) {
    return stop.guard === "model_unavailable"
      ? `I could not get an answer to "${shorten(question, 120)}" from the model.`
      : `I could not finish "${shorten(question, 120)}" and had not gathered any results yet.`;
  }
  const shown = calls.slice(-FALLBACK_STEPS_SHOWN);
  const lines = shown.map(
    (call) => `• ${call.tool}(${shorten(call.args, 60)}) — ${call.outcome}: ${shorten(dataInside(call.observation), 140)}`,
  );
  const skipped = calls.length - shown.length;
  return [
    `I could not finish "${shorten(question, 120)}". Here is what I did before stopping:`,
    ...(skipped > 0 ? [`• … ${skipped} earlier call${skipped === 1 ? "" : "s"} not shown`] : []),
    ...lines,
    "What is missing: a checked, final answer. The results above are all I have.",
  ].join("\n");
}

/** Never throws. `usage` is what the summary call cost, when the server reported it. */
/** `timeoutMs` bounds the summary call: a person who pressed Stop gets an answer quickly even from a hanging model. */
export async function summarize(
  input: SummaryInput,
  model: Model,
  counter: TokenCounter,
  timeoutMs = SUMMARY_TIMEOUT_MS,
): Promise<{ answer: string; usage?: TokenUsage }> {
  if (input.stop.guard === "model_unavailable") return { answer: fallbackSummary(input.steps, input.stop, input.question) };
  try {
    const reply = await model.complete({ messages: await summaryMessages(input, counter), tools: [] }, AbortSignal.timeout(timeoutMs));
    const text = reply.content?.trim();
    if (reply.toolCalls.length === 0 && text) return { answer: text, usage: reply.usage };
  } catch {
    // Fall through to the reply built from the steps.
  }
  return { answer: fallbackSummary(input.steps, input.stop, input.question) };
}
