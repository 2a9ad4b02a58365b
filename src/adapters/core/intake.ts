// A message for the bot, on any surface: classify (a question, a command, nothing), record and
// queue a question before the platform's ack, answer a command after it.
//
// The one rule for access and limits: they are checked where the work happens, never on the
// path to the ack. A question is recorded and queued with two store writes, and the worker that
// runs it asks governance first (runs/agent-service.ts); a refusal then goes to the asker
// privately (core/private-note.ts) and nothing else shows. A command is checked when it is
// answered, after the ack (core/commands.ts). So the ack stays as short on every surface as
// the ingress bench measures, and a redelivered refused message is not counted twice (its
// intake record is the dedupe).
import { IntakeUnavailableError } from "../../errors.js";
import type { Task } from "../../runs/api/task.js";
import { markBotThread } from "./bot-threads.js";
import { viewingNote } from "./viewing.js";
import { commandIn, runCommand } from "./commands.js";
import type { CoreContext } from "./core-context.js";
import type { CommandInput, MessageInput } from "./inbound.js";
import { emptyQuestionText, RESTARTING_COMMAND, STORAGE_TROUBLE } from "./texts.js";

/** Platforms retry for about an hour; a day is plenty to recognise a redelivered command. */
const EVENT_ID_TTL_MS = 24 * 60 * 60_000;

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Work to do once the platform heard its ack; never rejects. */
export type AfterAck = () => Promise<void>;

/**
 * Records and queues a question (the record is the dedupe). When the store or the queue can't take it, a platform that
 * delivers an unacknowledged message again (Slack) is not acknowledged and nobody is told (they would get "try again"
 * and then the answer too): this rejects with IntakeUnavailableError. Elsewhere the failure is told after the ack.
 */
export async function takeQuestion<C, R>(ctx: CoreContext<C, R>, input: MessageInput): Promise<AfterAck | undefined> {
  const { at } = input;
  const files = input.files ?? [];
  // A message of files alone is a question about them.
  if (input.text === "" && files.length === 0) return async () => void (await ctx.surface.post(at, emptyQuestionText(ctx.surface.askHint)));
  // A DM has no thread to read: where the person is looking, when the surface said, is its context.
  const viewing = input.contextSource ? undefined : await viewingNote(ctx, at.origin);
  const task: Task = {
    origin: at.origin,
    text: input.text,
    ...(input.contextSource ? { contextSource: input.contextSource } : {}),
    ...(viewing ? { threadContext: [viewing] } : {}),
    ...(at.reply ? { reply: at.reply } : {}),
    ...(files.length > 0 ? { files } : {}),
    ...(input.sentOrder ? { sentOrder: input.sentOrder } : {}),
  };
  try {
    // Also while the surface stops: the platform took the message, and the next start answers it.
    const submitted = await ctx.service.submit(task, input.receipt);
    if (submitted.kind === "duplicate")
      ctx.logger.info({ receipt: input.receipt, state: submitted.state }, "message already taken; ignoring the redelivery");
    // Before the ack: the person's next reply in the thread, a moment later, is for the bot too (a burst).
    else await markBotThread(ctx.store, ctx.logger, at.origin);
    return undefined;
  } catch (error) {
    if (ctx.surface.redelivers) {
      ctx.logger.error({ err: error, receipt: input.receipt }, "could not record the message; the platform is to deliver it again");
      throw error instanceof IntakeUnavailableError ? error : new IntakeUnavailableError(input.receipt, errorText(error));
    }
    ctx.logger.error({ err: error, receipt: input.receipt }, "could not record the message");
    return () => ctx.tell(at, STORAGE_TROUBLE);
  }
}

/** A question, or a command word: a command is answered after the ack, once per message (redeliveries skipped). */
export async function takeMessage<C, R>(ctx: CoreContext<C, R>, input: MessageInput): Promise<AfterAck | undefined> {
  const named = commandIn(input.text);
  if (!named) return takeQuestion(ctx, input);
  return async () => {
    try {
      const key = `${ctx.surface.name}:event:${input.receipt}`;
      if (!(await ctx.store.setIfAbsent(key, true, EVENT_ID_TTL_MS)))
        return ctx.logger.info({ receipt: input.receipt }, "command already answered; ignoring the redelivery");
    } catch (error) {
      ctx.logger.error({ err: error, receipt: input.receipt }, "could not check a command for redelivery");
      return ctx.tell(input.at, STORAGE_TROUBLE);
    }
    await answerCommand(ctx, { at: input.at, name: named.command.name, text: named.rest });
  };
}

/** A named command; one the table does not know is answered so. Never rejects. */
export async function answerCommand<C, R>(ctx: CoreContext<C, R>, input: CommandInput): Promise<void> {
  if (!ctx.accepting()) return ctx.tell(input.at, RESTARTING_COMMAND);
  const named = commandIn(input.name);
  if (!named) return ctx.tell(input.at, `I don't know the command ${ctx.surface.format.code(input.name)}.`);
  await runCommand({ ctx, at: input.at, command: named.command, text: input.text, options: input.options ?? {} });
}
