// An approval nobody decided in time: the service ends the run with its summary (in any
// process, also after a restart) and calls this. The approval message shows that it
// expired, buttons disabled, and the summary is posted below it with the bot's own token
// (the interaction that asked is long gone).
import type { PendingApproval, RunOutcome } from "../../agent/types.js";
import { approvalButtons } from "./approval-buttons.js";
import { placeChannelKind } from "./conversation.js";
import { approvalText, EXPIRED_LINE, withClosingLine } from "./messages.js";
import { channelSurface } from "./reply-surface.js";
import { createRunView, type AdapterContext } from "./run-view.js";

export async function showExpiry(context: AdapterContext, pending: PendingApproval, outcome: RunOutcome): Promise<void> {
  const record = await context.approvals.find(pending.runId, pending.callId);
  if (record) {
    const content = withClosingLine(approvalText(pending, context.deciders), EXPIRED_LINE);
    await context.api
      .edit(record, { content, components: approvalButtons(pending.runId, pending.callId, { disabled: true }) })
      .catch((error: unknown) => {
        context.logger.warn({ err: error, runId: pending.runId }, "could not mark the approval message as expired");
      });
  }
  const channelId = record?.channelId ?? pending.origin.place.channel;
  if (!channelId) {
    context.logger.warn({ runId: pending.runId }, "an approval expired but its channel is unknown; the summary can't be shown");
    return;
  }
  const view = createRunView(context, channelSurface(context.api, channelId, record?.messageId), {
    channelKind: placeChannelKind(pending.origin),
    question: record?.question ?? pending.tool,
  });
  await view.finish(outcome);
}
