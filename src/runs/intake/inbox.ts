// Each conversation's inbox: the messages recorded and not taken up yet, oldest first. A run
// reads it to take what its person sent meanwhile: a burst before it starts (worker/bursts.ts),
// a steer before its next model call (worker/steering.ts). The intake record stays the truth
// (what state a message is in); the inbox only says where to look, so an entry that outlived
// its record is skipped, and one a crash left out only means the message runs on its own.
import type { KeyValueStore } from "../../memory/types.js";

/** A run looks at this many waiting messages at most: a person does not send more while one run works. */
const LOOKED_AT = 50;

const inboxKey = (conversationKey: string) => `inbox:${conversationKey}`;

export interface Inbox {
  add(conversationKey: string, intakeId: string, receivedAt: number): Promise<void>;
  /** The ids waiting in the conversation, oldest first (at most LOOKED_AT). */
  waiting(conversationKey: string): Promise<string[]>;
  /** Taken up (run, merged, steered, dropped): they leave the inbox. */
  remove(conversationKey: string, intakeIds: readonly string[]): Promise<void>;
}

export function createInbox(store: KeyValueStore): Inbox {
  return {
    add: (conversationKey, intakeId, receivedAt) =>
      store.addToIndex([{ key: inboxKey(conversationKey), member: intakeId, score: receivedAt }]),
    async waiting(conversationKey) {
      const hits = await store.indexRange(inboxKey(conversationKey), { limit: LOOKED_AT, order: "asc" });
      return hits.map((hit) => hit.member);
    },
    remove: async (conversationKey, intakeIds) => {
      if (intakeIds.length > 0) await store.removeFromIndex(inboxKey(conversationKey), intakeIds);
    },
  };
}
