// Posting the approval message and finding it again later. Where the message is (channel, ts)
// is kept in the store (../approval-refs.ts), so an approval that expires after a restart can
// still be updated.
import { z } from "zod";
import type { webApi } from "@slack/bolt";
import type { PendingApproval } from "../../agent/types.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { Logger } from "../../logger.js";
import { createApprovalRefs, type ApprovalRefs } from "../core/approval-refs.js";
import { approvalBlocks, approvalText } from "./approval-message.js";
import { postWithRetry, type ReplyTarget } from "./post-answer.js";

const MessageRef = z.object({ channel: z.string().min(1), ts: z.string().min(1) });
export type MessageRef = z.infer<typeof MessageRef>;

export interface ApprovalPostDeps {
  readonly client: webApi.WebClient;
  readonly store: KeyValueStore;
  readonly approvers: readonly string[];
  readonly logger: Logger;
  readonly now: () => number;
}

export function approvalRefs(deps: Pick<ApprovalPostDeps, "store" | "logger" | "now">): ApprovalRefs<MessageRef> {
  return createApprovalRefs({ store: deps.store, logger: deps.logger, now: deps.now, keyPrefix: "slack:approval", schema: MessageRef });
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
    deps.logger.error(
      { err: error, runId: pending.runId, callId: pending.callId, tool: pending.tool },
      "could not post the approval message",
    );
    return;
  }
  if (ts !== undefined) await approvalRefs(deps).remember(pending, { channel: target.channel, ts });
}
