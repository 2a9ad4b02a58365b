// What the model is told besides the conversation, in two parts so that a prompt cache can
// reuse the first: the instructions and the surface's style (the same bytes for every run on a
// surface: they open every request), and the run's own note (the time to the minute and the
// facts recalled for this question), which goes after the history, right before the question.
import type { Fact } from "../../memory/types.js";
import { asData, DATA_BLOCKS_INSTRUCTION } from "./data-blocks.js";
import type { ChatMessage, Surface } from "../../contracts/types.js";

const SURFACE_STYLE: Record<Surface, string> = {
  console: "You are talking in a terminal. Plain text.",
  slack: "You are talking in Slack. Use Slack mrkdwn sparingly (*bold*, `code`, bullet lists); never mention @channel, @here or @everyone.",
  discord:
    "You are talking in Discord. Markdown is fine; keep replies under 1,500 characters when you can; never mention @everyone or @here.",
};

/** The first message of every run on `surface`: byte-identical from run to run. */
export function stableInstructions(surface: Surface): string {
  return [
    "You are a careful assistant that works through tools. Call a tool when it gives a better answer than guessing;",
    "answer directly when you already know. Never invent tool results. If a tool fails, say so or try another way.",
    "Tools that change things (posting messages, writing data) need a person's approval: the run pauses until they decide.",
    DATA_BLOCKS_INSTRUCTION,
    SURFACE_STYLE[surface],
  ].join("\n");
}

/**
 * What changes per run: the time (to the minute) and the facts recalled. The facts were distilled
 * from earlier conversations, whose text may have come from anyone: they are a data block under
 * the run's `boundary`.
 */
export function runNote(options: { facts: readonly Fact[]; now: Date; boundary: string }): string {
  const lines = [`The current date and time (UTC) is ${options.now.toISOString()}.`];
  if (options.facts.length > 0) {
    const facts = options.facts.map((fact) => `- ${fact.text}`).join("\n");
    lines.push("", "Remembered facts about this conversation (from earlier runs; they may be out of date):");
    lines.push(asData(facts, { kind: "memory" }, options.boundary));
  }
  return lines.join("\n");
}

/** Both parts as one message, for a run with no history to put between them (the console's demo loop). */
export function buildSystemPrompt(options: { surface: Surface; facts: readonly Fact[]; now: Date; boundary: string }): string {
  return `${stableInstructions(options.surface)}\n${runNote(options)}`;
}

/** Added after a reply with neither text nor calls (it counts as an error in the streak). */
export const EMPTY_REPLY_NUDGE: ChatMessage = {
  role: "system",
  content: "Your last reply was empty. Answer the person, or call one of the tools.",
};
