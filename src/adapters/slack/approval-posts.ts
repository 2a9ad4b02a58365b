// Posting the approval message and finding it again later. Where the message is (channel, ts)
// is kept in the store, so an approval that expires after a restart can still be updated.
import { z } from "zod";
import type { webApi } from "@slack/bolt";
import type { PendingApproval } from "../../agent/types.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { Logger } from "../../logger.js";
import { approvalBlocks, approvalText } from "./approval-message.js";
import { postWithRetry, type ReplyTarget } from "./post-answer.js";

/** Kept this long after the approval expires, for late clicks and expiry handling. */
const REF_GRACE_MS = 24 * 60 * 60_000;

const MessageRef = z.object({ channel: z.string().min(1), ts: z.string().min(1) });
export type MessageRef = z.infer<typeof MessageRef>;

const refKey = (runId: string, callId: string) => `slack:approval:${runId}:${callId}`;

export async function loadApprovalRef(store: KeyValueStore, runId: string, callId: string): Promise<MessageRef | undefined> {
  const parsed = MessageRef.safeParse(await store.get(refKey(runId, callId)));
  return parsed.success ? parsed.data : undefined;
}

export interface ApprovalPostDeps {
  readonly client: webApi.WebClient;
  readonly store: KeyValueStore;
  readonly approvers: readonly string[];
  readonly logger: Logger;
  readonly now: () => number;
}

/** Never throws: a message that cannot be posted is logged (the approval still expires into a summary). */
export async function postApproval(deps: ApprovalPostDeps, target: ReplyTarget, pending: PendingApproval): Promise<void> {
  let ts: string | undefined;
  try {
    await postWithRetry(async () => {
      const posted = await deps.client.chat.postMessage({
        channel: target.channel,
        ...(target.threadTs === undefined ? {} : { thread_ts: target.threadTs }),
        text: approvalText(pending),
        blocks: approvalBlocks(pending, deps.approvers),
      });
      ts = typeof posted.ts === "string" ? posted.ts : undefined;
    });
  } catch (error) {
    deps.logger.error({ err: error, runId: pending.runId, callId: pending.callId, tool: pending.tool }, "could not post the approval message");
    return;
  }
  if (ts === undefined) return;
  const ttl = Math.max(0, pending.expiresAt - deps.now()) + REF_GRACE_MS;
  try {
    await deps.store.set(refKey(pending.runId, pending.callId), { channel: target.channel, ts }, ttl);
  } catch (error) {
    deps.logger.warn({ err: error, runId: pending.runId }, "could not remember where the approval message is");
  }
}
