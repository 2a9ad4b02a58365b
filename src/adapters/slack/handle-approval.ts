// Approve / Deny clicks (after the ack) and approvals that expired with no click. The service
// decides who may decide and applies a decision at most once; this file shows the result:
// an ephemeral refusal, the approval message without buttons, and the rest of the run.
import { z } from "zod";
import type { PendingApproval, Decision, EventSink, RunOutcome } from "../../agent/types.js";
import type { DecisionResult } from "../../runs/service.js";
import { decidedNote, decodeApprovalValue, EXPIRED_NOTE, settledBlocks, settledFromPending } from "./approval-message.js";
import { approvalRefs } from "./approval-posts.js";
import { tellPrivately } from "./private-note.js";
import { createRunView } from "./run-view.js";
import type { SlackRuntime } from "./slack-runtime.js";
import { escapeSlackText } from "./slack-text.js";

const ClickBody = z.object({
  team: z.object({ id: z.string().min(1) }).nullish(),
  user: z.object({ id: z.string().min(1), username: z.string().optional(), team_id: z.string().optional() }),
  channel: z.object({ id: z.string().min(1) }),
  message: z.object({ ts: z.string().min(1), thread_ts: z.string().optional(), blocks: z.unknown().optional() }),
  actions: z.array(z.object({ value: z.string().optional() })).min(1),
});
type ClickBody = z.infer<typeof ClickBody>;

const PlaceOfOrigin = z.object({
  team: z.string().min(1),
  channel: z.string().min(1),
  thread_ts: z.string().min(1),
  reply_thread_ts: z.string().min(1).optional(),
});

function tellOnly(runtime: SlackRuntime, click: ClickBody, text: string): Promise<void> {
  return tellPrivately(
    runtime,
    { channel: click.channel.id, user: click.user.id, ...(click.message.thread_ts ? { threadTs: click.message.thread_ts } : {}) },
    text,
  );
}

async function settle(
  runtime: SlackRuntime,
  channel: string,
  ts: string,
  blocks: ReturnType<typeof settledBlocks>,
  text: string,
): Promise<void> {
  try {
    await runtime.client.chat.update({ channel, ts, text, blocks });
  } catch (error) {
    runtime.logger.warn({ err: error, channel, ts }, "could not update the approval message");
  }
}

function refusal(result: Exclude<DecisionResult, { kind: "resumed" | "expired" }>, approvers: readonly string[]): string {
  switch (result.kind) {
    case "not_allowed":
      return approvers.length === 0
        ? `Only <@${result.requester.id}> can approve this.`
        : `Only <@${result.requester.id}> or an approver can decide this.`;
    case "already_decided":
      return `This was already ${result.decision === "approve" ? "approved" : "denied"} by <@${result.decidedBy.id}>.`;
    case "unknown":
      return escapeSlackText(result.message);
  }
}

/** Never throws. `body` is the block_actions payload: untrusted. */
export async function handleApprovalClick(runtime: SlackRuntime, body: unknown, decision: Decision): Promise<void> {
  const parsed = ClickBody.safeParse(body);
  if (!parsed.success) {
    runtime.logger.warn({ issue: parsed.error.issues[0]?.message }, "ignored a malformed button click");
    return;
  }
  const click = parsed.data;
  const ref = decodeApprovalValue(click.actions[0]?.value);
  if (!ref) return tellOnly(runtime, click, "I could not read this button. Ask me again to get a fresh one.");
  if (!runtime.accepting()) return tellOnly(runtime, click, "I am restarting right now; please click again in a moment.");

  const messageTs = click.message.ts;
  let settled = false;
  const settleDecided = async (made: Decision, by: { id: string }) => {
    if (settled) return;
    settled = true;
    const note = decidedNote(made, by);
    await settle(runtime, click.channel.id, messageTs, settledBlocks(click.message.blocks, note), note);
  };
  const view = createRunView(runtime, {
    team: click.team?.id ?? click.user.team_id ?? "",
    channel: click.channel.id,
    traceThreadTs: click.message.thread_ts ?? messageTs,
    replyThreadTs: click.message.thread_ts,
    requester: click.user.id,
  });
  const pendingUpdates: Promise<void>[] = [];
  const sink: EventSink = (event) => {
    if (event.type === "approval_decided") pendingUpdates.push(settleDecided(event.decision, event.decidedBy));
    view.sink(event);
  };

  try {
    const result = await runtime.service.decide(
      {
        runId: ref.runId,
        callId: ref.callId,
        decision,
        decidedBy: { id: click.user.id, name: click.user.username },
        isApprover: runtime.approvers.includes(click.user.id),
      },
      sink,
    );
    await Promise.all(pendingUpdates);
    if (result.kind === "resumed") {
      await settleDecided(result.decision, { id: click.user.id });
      if (result.note) await tellOnly(runtime, click, escapeSlackText(result.note));
      if (result.outcome) await view.finish(result.outcome);
      return;
    }
    if (result.kind === "expired") {
      await settle(runtime, click.channel.id, messageTs, settledBlocks(click.message.blocks, EXPIRED_NOTE), EXPIRED_NOTE);
      if (result.outcome) await view.finish(result.outcome);
      return;
    }
    await tellOnly(runtime, click, refusal(result, runtime.approvers));
  } catch (error) {
    runtime.logger.error({ err: error, runId: ref.runId, callId: ref.callId }, "could not apply the decision");
    await tellOnly(runtime, click, "Sorry, I could not record your decision just now. Please click again in a moment.");
  }
}

/** Never throws: the approval message loses its buttons and the run's summary goes to the thread. */
export async function handleApprovalExpired(runtime: SlackRuntime, pending: PendingApproval, outcome: RunOutcome): Promise<void> {
  try {
    const ref = await approvalRefs(runtime).find(pending.runId, pending.callId);
    if (ref) await settle(runtime, ref.channel, ref.ts, settledFromPending(pending, runtime.approvers, EXPIRED_NOTE), EXPIRED_NOTE);
    const place = PlaceOfOrigin.safeParse(pending.origin.place);
    if (!place.success) {
      runtime.logger.error({ runId: pending.runId, outcome }, "an expired approval has no Slack place; its summary is in this log line");
      return;
    }
    const view = createRunView(runtime, {
      team: place.data.team,
      channel: place.data.channel,
      traceThreadTs: place.data.thread_ts,
      replyThreadTs: place.data.reply_thread_ts,
      requester: pending.requester.id,
    });
    await view.finish(outcome);
  } catch (error) {
    runtime.logger.error({ err: error, runId: pending.runId, outcome }, "could not show an expired approval");
  }
}
