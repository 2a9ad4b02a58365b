// Where each approval message was posted and the request that led to it (for the trace
// thread's name after the decision), kept through the shared store of ../approval-refs.ts.
import { z } from "zod";
import type { Logger } from "../../logger.js";
import type { KeyValueStore } from "../../memory/types.js";
import { createApprovalRefs, type ApprovalRefs } from "../core/approval-refs.js";

const QUESTION_CHARS = 200;

const ApprovalMessage = z.object({
  channelId: z.string().regex(/^\d+$/),
  messageId: z.string().regex(/^\d+$/),
  question: z.string().max(QUESTION_CHARS),
});
export type ApprovalMessage = z.infer<typeof ApprovalMessage>;
export type ApprovalMessages = ApprovalRefs<ApprovalMessage>;

export function createApprovalMessages(store: KeyValueStore, logger: Logger, clock: () => number): ApprovalMessages {
  const refs = createApprovalRefs({ store, logger, now: clock, keyPrefix: "discord:approval-message", schema: ApprovalMessage });
  return {
    remember: (pending, message) =>
      refs.remember(pending, {
        channelId: message.channelId,
        messageId: message.messageId,
        question: message.question.slice(0, QUESTION_CHARS),
      }),
    find: (runId, callId) => refs.find(runId, callId),
  };
}
