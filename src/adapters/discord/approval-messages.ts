// Remembers where each approval message was posted, in the shared store, so that the
// process that notices an expiry (any process, after any restart) can update it.
import { z } from "zod";
import type { Logger } from "../../logger.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { PendingApproval } from "../../agent/types.js";
import type { SentMessage } from "./channel-api.js";

export interface ApprovalMessage extends SentMessage {
  /** The request that led to it, for the trace thread's name after the decision. */
  readonly question: string;
}

export interface ApprovalMessages {
  /** Never throws: a failure is logged (the buttons still work; only the expiry edit and thread name are lost). */
  remember(pending: PendingApproval, message: ApprovalMessage): Promise<void>;
  /** Undefined when unknown, unreadable or not valid. Never throws. */
  find(runId: string, callId: string): Promise<ApprovalMessage | undefined>;
}

const QUESTION_CHARS = 200;

const StoredMessage = z.object({ channelId: z.string().regex(/^\d+$/), messageId: z.string().regex(/^\d+$/), question: z.string().max(QUESTION_CHARS) });

/** Kept a day past the expiry, so a late expiry sweep still finds it. */
const KEEP_AFTER_EXPIRY_MS = 24 * 60 * 60_000;

const keyOf = (runId: string, callId: string) => `discord:approval-message:${runId}:${callId}`;

export function createApprovalMessages(store: KeyValueStore, logger: Logger, clock: () => number): ApprovalMessages {
  return {
    async remember(pending, message) {
      const ttl = Math.max(0, pending.expiresAt - clock()) + KEEP_AFTER_EXPIRY_MS;
      const record = { channelId: message.channelId, messageId: message.messageId, question: message.question.slice(0, QUESTION_CHARS) };
      await store.set(keyOf(pending.runId, pending.callId), record, ttl).catch((error: unknown) => {
        logger.warn({ err: error, runId: pending.runId }, "could not remember where the approval message is; its expiry will not be shown on it");
      });
    },
    async find(runId, callId) {
      const raw = await store.get(keyOf(runId, callId)).catch((error: unknown) => {
        logger.warn({ err: error, runId }, "could not read where the approval message is");
        return undefined;
      });
      if (raw === undefined) return undefined;
      const parsed = StoredMessage.safeParse(raw);
      if (!parsed.success) {
        logger.warn({ runId }, "ignoring an invalid stored approval message record");
        return undefined;
      }
      return parsed.data;
    },
  };
}
