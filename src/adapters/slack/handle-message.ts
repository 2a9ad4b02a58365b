// A message for the bot (mention, DM, Messages tab). Slack's ack waits for takeMessage: a
// question is classified, recorded and queued before Slack hears "ok", so an acked message is
// never lost with its process, and a follow-up cannot overtake it on another process. The
// worker that runs it checks the settings file first (a refusal is told privately from there);
// replies to commands come after the ack. The intake record is the dedupe.
import { IntakeUnavailableError } from "../../errors.js";
import type { Task } from "../../runs/service.js";
import { contextSourceOf } from "./thread-context-source.js";
import { showAudit, showSettings } from "./governance-replies.js";
import { showFeedback } from "./feedback-listing.js";
import { classifyMessage, type EntryPoint, type Incoming, type IncomingMessage } from "./incoming-message.js";
import { toolListText } from "../tool-list-text.js";
import { neutraliseMentions } from "./neutralise-mentions.js";
import { postWithRetry } from "./post-answer.js";
import { originOf } from "./run-presenter.js";
import type { SlackRuntime } from "./slack-runtime.js";
import { codeBlock, escapeSlackText } from "./slack-text.js";

/** Slack retries for about an hour; a day is plenty to recognise a redelivery. */
const EVENT_ID_TTL_MS = 24 * 60 * 60_000;

async function reply(runtime: SlackRuntime, message: IncomingMessage, text: string): Promise<void> {
  const { channel, replyThreadTs } = message.place;
  try {
    await postWithRetry(() => runtime.client.chat.postMessage({ channel, ...(replyThreadTs ? { thread_ts: replyThreadTs } : {}), text }));
  } catch (error) {
    runtime.logger.error({ err: error, channel, text }, "could not post a reply");
  }
}

async function showMemory(runtime: SlackRuntime, message: IncomingMessage): Promise<void> {
  const facts = await runtime.service.rememberedFacts(message.conversationKey);
  if (facts.length === 0) return reply(runtime, message, "I don't remember anything about this conversation yet.");
  const lines = facts.map((fact) => `• ${escapeSlackText(neutraliseMentions(fact.text))}`);
  await reply(runtime, message, `Here is what I remember about this conversation:\n${lines.join("\n")}`);
}

async function forget(runtime: SlackRuntime, message: IncomingMessage): Promise<void> {
  const removed = await runtime.service.forget(message.conversationKey);
  await reply(
    runtime,
    message,
    removed === 0
      ? "There was nothing to forget here."
      : `Done: I forgot ${removed} ${removed === 1 ? "fact" : "facts"} about this conversation.`,
  );
}

/** What is left after Slack's ack (replies); never rejects. */
export type AfterAck = () => Promise<void>;

const STORAGE_TROUBLE = "Sorry, I could not handle that just now (my storage did not answer). Please try again in a moment.";

/**
 * Records the question and queues its run (the record is the dedupe): two store round trips.
 * The worker reads the thread (a slow Slack call) and checks access and limits when the run
 * starts; the Slack presenter shows the run wherever it runs. Rejects with IntakeUnavailableError
 * when the question could not be recorded: Slack is then not acknowledged and delivers it again
 * (see untaken-requests.ts), and the person is told nothing.
 */
async function submitQuestion(runtime: SlackRuntime, message: IncomingMessage): Promise<undefined> {
  try {
    const contextSource = contextSourceOf(message);
    const task: Task = { origin: originOf(message), text: message.text, ...(contextSource ? { contextSource } : {}) };
    const submitted = await runtime.service.submit(task, message.dedupeKey);
    if (submitted.kind === "duplicate")
      runtime.logger.info({ event: message.dedupeKey, state: submitted.state }, "message already taken; ignoring the redelivery");
    return undefined;
  } catch (error) {
    runtime.logger.error({ err: error, event: message.dedupeKey }, "could not record the message; Slack is to deliver it again");
    if (error instanceof IntakeUnavailableError) throw error;
    throw new IntakeUnavailableError(message.dedupeKey, error instanceof Error ? error.message : String(error));
  }
}

/** Everything but a question: memory and settings commands, answered after the ack (redeliveries skipped by event id). */
async function answerCommand(runtime: SlackRuntime, incoming: Extract<Incoming, { readonly message: IncomingMessage }>): Promise<void> {
  const { logger } = runtime;
  const { message } = incoming;
  if (!runtime.accepting()) return;
  try {
    const fresh = await runtime.store.setIfAbsent(`slack:event:${message.dedupeKey}`, true, EVENT_ID_TTL_MS);
    if (!fresh) {
      logger.info({ event: message.dedupeKey }, "event already handled; ignoring the redelivery");
      return;
    }
    if (incoming.kind === "memory") return await showMemory(runtime, message);
    if (incoming.kind === "forget") return await forget(runtime, message);
    if (incoming.kind === "audit") return await showAudit(runtime, message);
    if (incoming.kind === "settings") return await showSettings(runtime, message);
    if (incoming.kind === "feedback") return await showFeedback(runtime, message);
    if (incoming.kind === "tools") return await reply(runtime, message, codeBlock(toolListText(runtime.service.toolList("slack"))));
    if (incoming.kind === "empty") {
      const bot = runtime.botUserId();
      return await reply(runtime, message, `Ask me something after the mention, for example: ${bot ? `<@${bot}> ` : ""}what can you do?`);
    }
  } catch (error) {
    logger.error({ err: error, event: message.dedupeKey }, "could not handle the message");
    return reply(runtime, message, STORAGE_TROUBLE);
  }
}

/**
 * The part Slack's ack waits for: a question is recorded and queued; everything else is returned
 * as the work to do after the ack. Rejects only with IntakeUnavailableError (not to be acknowledged).
 */
export async function takeMessage(
  runtime: SlackRuntime,
  entry: EntryPoint,
  body: unknown,
  fallbackTeam?: string,
): Promise<AfterAck | undefined> {
  const incoming = classifyMessage(entry, body, runtime.botUserId(), fallbackTeam);
  if (incoming.kind === "ignore") {
    runtime.logger.debug({ entry, reason: incoming.reason }, "event ignored");
    return undefined;
  }
  // A question that arrives while the transport closes is still recorded, and the next start answers it.
  if (incoming.kind === "ask") return submitQuestion(runtime, incoming.message);
  return () => answerCommand(runtime, incoming);
}

/** takeMessage and then what it left for after the ack, as one piece of work. Rejects as takeMessage does. */
export async function handleMessage(runtime: SlackRuntime, entry: EntryPoint, body: unknown, fallbackTeam?: string): Promise<void> {
  const afterAck = await takeMessage(runtime, entry, body, fallbackTeam);
  await afterAck?.();
}
