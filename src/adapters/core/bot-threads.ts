// The threads the bot works in. A question taken or a run shown in a channel's thread marks its conversation, so that
// a person's reply there without a mention is for the bot (core/follow-ups.ts), as it would be
// between people. A DM needs no mark: everything there is for the bot already.
import type { TaskOrigin } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import type { KeyValueStore } from "../../memory/types.js";

/** A thread people came back to within a month still counts; one quiet for longer needs a mention again. */
const MARK_TTL_MS = 30 * 24 * 60 * 60_000;

const markKey = (conversationKey: string) => `bot-thread:${conversationKey}`;

/** Marks the conversation of a run shown outside a DM. Never rejects: without the mark a reply there needs a mention. */
export async function markBotThread(store: KeyValueStore, logger: Logger, origin: TaskOrigin): Promise<void> {
  if (origin.scope?.dm) return;
  await store.set(markKey(origin.conversationKey), true, MARK_TTL_MS).catch((error: unknown) => {
    logger.warn({ err: error, conversationKey: origin.conversationKey }, "could not mark a thread the bot works in");
  });
}

/** Whether the bot showed a run in this conversation (its thread); rejects when the store can't say. */
export async function isBotThread(store: KeyValueStore, conversationKey: string): Promise<boolean> {
  return (await store.get(markKey(conversationKey))) === true;
}

/** Removes the mark (a removed workspace's conversations); rejects when the store fails. */
export async function unmarkBotThread(store: KeyValueStore, conversationKey: string): Promise<void> {
  await store.delete(markKey(conversationKey));
}
