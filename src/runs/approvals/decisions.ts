// The approval-decision protocol: a click on Approve or Deny (or an expiry found on the click) is
// checked against the stored run, the authority, governance (may the person act here now:
// decision-gate.ts) and the clock, then claimed before it is applied, so a decision is applied at
// most once across double clicks, replicas and restarts. A refused click claims nothing.
import type { ApprovalStore, ClaimRecord, StoredRun } from "./approval-store.js";
import type { EventSink } from "../../contracts/types.js";
import type { Authority } from "../../governance/authority.js";
import { upgradedRun } from "../worker/paused-item.js";
import type { DecisionGate } from "./decision-gate.js";
import type { Resumed } from "../worker/runner.js";
import type { DecisionRequest, DecisionResult } from "../api/decision-request.js";
import type { OriginUpgrade } from "../api/surface-hooks.js";
import type { ReplyHandle } from "../api/task.js";

export interface DecisionsDeps {
  readonly approvals: ApprovalStore;
  readonly authority: Authority;
  readonly gate: DecisionGate;
  /** Reads a paused run of an older version with its scope, for the gate. */
  readonly upgrade: OriginUpgrade;
  readonly clock: () => number;
  /** Queues the rest of the run after a won claim; see Runner.resume. */
  readonly resume: (run: StoredRun, sink: EventSink, reply?: ReplyHandle) => Promise<Resumed>;
}

/** Applies a decision at most once; never throws for a decision that can't be used (the result says why). */
export type Decide = (request: DecisionRequest, sink: EventSink) => Promise<DecisionResult>;

const EXPIRED: DecisionResult = {
  kind: "unknown",
  message: "This approval request expired, so nothing was run. Ask again if it is still needed.",
};
const NOT_KNOWN: DecisionResult = {
  kind: "unknown",
  message: "This approval request is not known: it may have expired long ago or the bot's store was reset. Nothing was run; ask again.",
};
const NOT_QUEUED_NOTE =
  "Your decision is recorded, but the bot could not go on with the request just now (its work queue is unavailable). It goes on by itself as soon as it can: no need to click again.";

const connectionWaitText = (server: string) =>
  `This request waits for its requester to connect ${server} with their private link; there is nothing to approve.`;

/** Who decided this call before, if anyone did. */
function priorDecision(existing: ClaimRecord | undefined): DecisionResult | undefined {
  if (!existing) return undefined;
  if (existing.decision === "expired" || !existing.decidedBy) return EXPIRED;
  return { kind: "already_decided", decision: existing.decision, decidedBy: existing.decidedBy };
}

export function createDecisions(deps: DecisionsDeps): Decide {
  const { approvals, authority, gate, clock, resume } = deps;
  return async (request, sink) => {
    const loaded = await approvals.load(request.runId);
    if (loaded.kind === "invalid")
      return { kind: "unknown", message: `This approval request can't be used: ${loaded.reason}. Nothing was run; ask again.` };
    if (loaded.kind === "missing" || loaded.run.pending.callId !== request.callId)
      return priorDecision(await approvals.decisionOf(request.runId, request.callId)) ?? NOT_KNOWN;
    const { run } = loaded;
    // A run that waits for a connection goes on when its requester connects, never by a click.
    if (run.pending.connect) return { kind: "unknown", message: connectionWaitText(run.pending.connect.server) };
    const upgraded = upgradedRun(deps.upgrade, run);
    // The person decides in the run's workspace: its admins, not another's.
    const workspace = upgraded.state.origin.scope?.workspace;
    const actor = {
      surface: run.state.origin.surface,
      ...(workspace ? { workspace } : {}),
      id: request.decidedBy.id,
      roles: request.roles ?? [],
      ...(request.workspaceAdmin ? { workspaceAdmin: true } : {}),
    };
    if (!authority.may("decide", actor, run.pending.requester)) return { kind: "not_allowed", requester: run.pending.requester };
    const { decision, decidedBy } = request;
    const refused = await gate.decider(upgraded, {
      decision,
      decidedBy,
      roles: actor.roles,
      ...(request.workspaceAdmin ? { workspaceAdmin: true } : {}),
    });
    if (refused !== undefined) return { kind: "refused", text: refused };
    const now = clock();
    if (now >= run.pending.expiresAt) {
      const claim = await approvals.claim(request.runId, request.callId, { decision: "expired" }, now);
      if (!claim.won) return priorDecision(claim.existing) ?? EXPIRED;
      const { outcome } = await resume(run, sink, request.reply);
      return outcome ? { kind: "expired", outcome } : { kind: "expired" };
    }
    // Claimed before it is applied: a crash in between is finished by the next start or the expiry item, never stranded.
    const claim = await approvals.claim(request.runId, request.callId, { decision: request.decision, decidedBy: request.decidedBy }, now);
    if (!claim.won) return priorDecision(claim.existing) ?? EXPIRED;
    const { queued, outcome } = await resume(run, sink, request.reply);
    return { kind: "resumed", decision: request.decision, ...(outcome ? { outcome } : {}), ...(queued ? {} : { note: NOT_QUEUED_NOTE }) };
  };
}
