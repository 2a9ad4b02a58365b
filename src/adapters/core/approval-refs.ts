// Where each approval message was posted, kept in the shared store, so the process that
// notices an expiry or takes a late click (any process, after any restart) can update the
// message. A record lives until a day after its approval expires. What a record holds is the
// surface's own business: it passes the schema that stored records are checked against.
import type { z } from "zod";
import type { PendingApproval } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import type { KeyValueStore } from "../../memory/types.js";

/** Kept this long after the approval expires, for late clicks and a late expiry sweep. */
export const KEEP_AFTER_EXPIRY_MS = 24 * 60 * 60_000;

export interface ApprovalRefs<Ref> {
  /** Never throws: a failure is logged (the buttons still work; only later edits of the message are lost). */
  remember(pending: Pick<PendingApproval, "runId" | "callId" | "expiresAt">, ref: Ref): Promise<void>;
  /** Undefined when unknown, unreadable or not valid. Never throws. */
  find(runId: string, callId: string): Promise<Ref | undefined>;
}

export interface ApprovalRefsOptions<Ref> {
  readonly store: KeyValueStore;
  readonly logger: Logger;
  readonly now: () => number;
  /** Keys are `<keyPrefix>:<runId>:<callId>`. */
  readonly keyPrefix: string;
  /** Checks what comes back from the store: it is untrusted. */
  readonly schema: z.ZodType<Ref>;
}

const refKey = (keyPrefix: string, runId: string, callId: string) => `${keyPrefix}:${runId}:${callId}`;

/** Forgets where an approval message is (its workspace removed the bot). Rejects when the store fails. */
export async function forgetApprovalRef(store: KeyValueStore, keyPrefix: string, runId: string, callId: string): Promise<void> {
  await store.delete(refKey(keyPrefix, runId, callId));
}

export function createApprovalRefs<Ref>(options: ApprovalRefsOptions<Ref>): ApprovalRefs<Ref> {
  const { store, logger } = options;
  const keyOf = (runId: string, callId: string) => refKey(options.keyPrefix, runId, callId);
  return {
    async remember(pending, ref) {
      const ttl = Math.max(0, pending.expiresAt - options.now()) + KEEP_AFTER_EXPIRY_MS;
      await store.set(keyOf(pending.runId, pending.callId), ref, ttl).catch((error: unknown) => {
        logger.warn(
          { err: error, runId: pending.runId },
          "could not remember where the approval message is; later updates of it will be missing",
        );
      });
    },
    async find(runId, callId) {
      const raw = await store.get(keyOf(runId, callId)).catch((error: unknown) => {
        logger.warn({ err: error, runId }, "could not read where the approval message is");
        return undefined;
      });
      if (raw === undefined) return undefined;
      const parsed = options.schema.safeParse(raw);
      if (!parsed.success) {
        logger.warn({ runId }, "ignoring an invalid stored approval message record");
        return undefined;
      }
      return parsed.data;
    },
  };
}
