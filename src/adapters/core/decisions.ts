// Approve / Deny, on any surface: the service applies a decision at most once (the authority
// says who may, and governance whether they may act here now); the approval message then shows
// what happened without its buttons, anyone refused is told privately, and the rest of the run
// shows through the run's presenter, from whichever process runs it. An approval nobody decided
// in time shows as expired, with the run's summary below it.
import type { PendingApproval, RunOutcome } from "../../contracts/types.js";
import type { CoreContext } from "./core-context.js";
import type { DecisionClick } from "./inbound.js";
import { createRunView } from "./run-view.js";
import { alreadyDecidedText, DECISION_FAILED, notAllowedText, REFUSED_IN_PUBLIC, RESTARTING_CLICK } from "./texts.js";

/** Never throws. */
export async function decide<C, R>(ctx: CoreContext<C, R>, click: DecisionClick<C>): Promise<void> {
  const { at, clicked } = click;
  if (!ctx.accepting()) return ctx.tell(at, RESTARTING_CLICK);
  const person = at.origin.requester;
  const settle = (card: Parameters<typeof ctx.surface.settleApproval>[1]) => ctx.surface.settleApproval({ clicked }, card);
  try {
    const result = await ctx.service.decide(
      {
        runId: click.runId,
        callId: click.callId,
        decision: click.decision,
        decidedBy: person,
        roles: at.origin.scope?.roles ?? [],
        ...(at.origin.scope?.workspaceAdmin ? { workspaceAdmin: true } : {}),
        ...(at.reply ? { reply: at.reply } : {}),
      },
      () => {},
    );
    switch (result.kind) {
      case "resumed":
        await settle({ kind: "decided", decision: result.decision, by: person });
        // The decision is recorded but the run could not go on at once: the person hears it goes on by itself.
        if (result.note) await ctx.tell(at, result.note);
        return;
      case "expired":
        return settle({ kind: "expired" });
      case "already_decided":
        await ctx.tell(at, alreadyDecidedText(result.decision, result.decidedBy, ctx.surface.format));
        return settle({ kind: "decided", decision: result.decision, by: result.decidedBy });
      case "refused":
        return ctx.tell(at, result.text, REFUSED_IN_PUBLIC);
      case "not_allowed": {
        const deciders = ctx.governance.authority.deciders(ctx.surface.name);
        return ctx.tell(at, notAllowedText(result.requester, deciders, ctx.surface.format));
      }
      case "unknown":
        return ctx.tell(at, result.message);
    }
  } catch (error) {
    ctx.logger.error({ err: error, runId: click.runId, callId: click.callId }, "could not apply the decision");
    await ctx.tell(at, DECISION_FAILED);
  }
}

/** The service ended a run whose approval nobody decided (in any process, also after a restart). Never throws. */
export async function showExpiry<C, R>(ctx: CoreContext<C, R>, pending: PendingApproval, outcome: RunOutcome): Promise<void> {
  try {
    const deciders = ctx.governance.authority.deciders(ctx.surface.name);
    const ref = await ctx.refs.find(pending.runId, pending.callId);
    if (ref !== undefined) await ctx.surface.settleApproval({ ref }, { kind: "expired", approval: { pending, deciders } });
    if (!ctx.surface.display) return;
    const display = ctx.surface.display({ origin: pending.origin, question: pending.tool, ...(ref === undefined ? {} : { below: ref }) });
    const files = ctx.answerFiles(pending.origin.conversationKey);
    const view = createRunView(display, {
      logger: ctx.logger,
      refs: ctx.refs,
      deciders,
      question: pending.tool,
      files,
      unfinished: ctx.unfinished,
    });
    await view.finish(outcome);
  } catch (error) {
    ctx.logger.error({ err: error, runId: pending.runId, outcome }, "could not show an expired approval; its summary is in this log line");
  }
}
