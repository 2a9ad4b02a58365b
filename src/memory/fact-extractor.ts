// End-of-run fact extraction: one JSON-mode model call that picks the durable facts of an
// exchange. Its reply is untrusted: anything but `{ "facts": string[] }` means no facts.
// Must not throw: a failure here never touches the reply the person already got.
import { z } from "zod";
import type { Logger } from "../logger.js";
import type { ChatMessage, Model } from "../contracts/model.js";

export interface Exchange {
  readonly user: string;
  readonly assistant: string;
  /** Facts already remembered, so the model does not repeat them. */
  readonly known: readonly string[];
}

export const MAX_FACTS_PER_EXCHANGE = 5;
export const MAX_FACT_LENGTH = 300;
/** Longer messages are cut before they go to the model: durable facts sit in the gist. */
const MAX_EXCHANGE_CHARS = 4_000;
const MAX_KNOWN_FACTS = 50;

const replySchema = z.object({ facts: z.array(z.string()).max(50) });

const SYSTEM_PROMPT = [
  "You pick facts worth remembering from one exchange between a person and an assistant.",
  "Keep only durable facts that will still matter in later conversations: the person's name, role,",
  "preferences, goals, decisions taken, constraints, and names of projects, systems or people they work with.",
  "Leave out small talk, one-off questions, the assistant's own answers and anything already known.",
  `Write each fact as one short self-contained sentence in the language of the exchange, at most ${MAX_FACTS_PER_EXCHANGE} facts.`,
  'Reply with a JSON object only: {"facts": ["..."]}. Reply {"facts": []} when nothing is worth keeping.',
].join("\n");

/** The facts worth keeping from `exchange`, or [] when there are none or anything goes wrong. */
export async function extractFacts(model: Model, exchange: Exchange, signal: AbortSignal, logger: Logger): Promise<string[]> {
  let content: string | null;
  try {
    const reply = await model.complete({ messages: promptFor(exchange), tools: [], responseFormat: "json_object" }, signal);
    content = reply.content;
  } catch (error) {
    logger.warn(
      { err: error, model: model.name },
      "Fact extraction failed: the model call did not succeed; nothing is remembered from this run",
    );
    return [];
  }
  const facts = parseFacts(content);
  if (facts === undefined) {
    logger.warn(
      { model: model.name, reply: content?.slice(0, 500) ?? null },
      'Fact extraction failed: the reply was not {"facts": [strings]}; nothing is remembered from this run',
    );
    return [];
  }
  return facts;
}

function promptFor(exchange: Exchange): ChatMessage[] {
  const known = exchange.known.slice(0, MAX_KNOWN_FACTS);
  const body = [
    "Already known:",
    known.length === 0 ? "(nothing yet)" : known.map((fact) => `- ${fact}`).join("\n"),
    "",
    "The person wrote:",
    clip(exchange.user),
    "",
    "The assistant answered:",
    clip(exchange.assistant),
  ].join("\n");
  return [
    { role: "system", content: SYSTEM_PROMPT },
    { role: "user", content: body },
  ];
}

/** undefined for a reply of the wrong shape; otherwise the usable facts (trimmed, bounded, unique). */
function parseFacts(content: string | null): string[] | undefined {
  if (content === null) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(stripCodeFence(content));
  } catch {
    return undefined;
  }
  const parsed = replySchema.safeParse(json);
  if (!parsed.success) return undefined;
  const facts = parsed.data.facts.map((fact) => fact.trim()).filter((fact) => fact !== "" && fact.length <= MAX_FACT_LENGTH);
  return [...new Set(facts)].slice(0, MAX_FACTS_PER_EXCHANGE);
}

function stripCodeFence(content: string): string {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(content);
  return fenced?.[1] ?? content;
}

function clip(text: string): string {
  return text.length <= MAX_EXCHANGE_CHARS ? text : `${text.slice(0, MAX_EXCHANGE_CHARS)}…`;
}
