// Governance at a decision on a paused run, asked where decisions are applied: of the person
// deciding when their decision is taken (a click on any surface, the console's prompt), and of the
// run going on after it when its resume runs (right after the click, or after a restart: the
// check closest to the write). Both are acts of governance/acts.ts, so the settings file as it is
// now decides, not as it was when the run paused. A refusal of either is written to the audit log
// with who decided what, and why. So is the requester's own Approve of a write whose destination
// came from content someone else wrote, under UNTRUSTED_WRITES=approver: the content may have
// counted on them approving what they think they asked for (their Deny stands).
import type { Decision, GuardStop, Person } from "../../contracts/types.js";
import { scopeOf } from "../../governance/access.js";
import { refusedDecisionDraft } from "../../governance/audit-events.js";
import { refusalDetail, refusalStop } from "../../governance/refusal-text.js";
import type { RunPolicy } from "../../governance/run-policy.js";
import type { StoredRun } from "./approval-store.js";

/** A decision on a run's waiting call: what, by whom, and (Discord) their roles where they decided. */
export interface DecisionAct {
  readonly decision: Decision;
  readonly decidedBy: Person;
  readonly roles: readonly string[];
  /** The platform names the person deciding an admin of the workspace (see RequestScope). */
  readonly workspaceAdmin?: boolean;
}

export interface DecisionGate {
  /** Undefined when the person may decide on `run` now; else what they are told, privately. Never rejects. */
  decider(run: StoredRun, act: DecisionAct): Promise<string | undefined>;
  /** Undefined when `run` may go on after its decision; else the stop it ends with, its waiting call not run. Never rejects. */
  goOn(run: StoredRun, act: Omit<DecisionAct, "roles" | "workspaceAdmin">): Promise<GuardStop | undefined>;
}

/** UNTRUSTED_WRITES=approver: what the requester is told when they approve such a write themselves. */
export const OTHER_APPROVER_TEXT =
  "You can't approve this one yourself: where it writes came from content someone else wrote, not from your request, so another approver must approve it (UNTRUSTED_WRITES=approver). You can still deny it.";
const OTHER_APPROVER_REASON =
  "the requester's own approval of a write whose destination came from content someone else wrote (UNTRUSTED_WRITES=approver)";

const ownApprovalRefused = (run: StoredRun, act: Pick<DecisionAct, "decision" | "decidedBy">) =>
  act.decision === "approve" && act.decidedBy.id === run.pending.requester.id && run.pending.provenance?.needs === "other_approver";

/** `run`s come upgraded (with their scope): an older record's place is read as this version reads it. */
export function createDecisionGate(policy: RunPolicy | undefined, clock: () => number): DecisionGate {
  if (!policy)
    return { decider: async (run, act) => (ownApprovalRefused(run, act) ? OTHER_APPROVER_TEXT : undefined), goOn: async () => undefined };
  const refused = (run: StoredRun, act: Omit<DecisionAct, "roles">, reason: string) =>
    policy.observer.record(refusedDecisionDraft(run.pending, act.decision, act.decidedBy, reason));
  return {
    async decider(run, act) {
      if (ownApprovalRefused(run, act)) {
        refused(run, act, OTHER_APPROVER_REASON);
        return OTHER_APPROVER_TEXT;
      }
      const { origin } = run.state;
      // The person decides where the run's approval card is: in its conversation, with their own roles there.
      const { workspaceAdmin: _theRequesters, ...scope } = scopeOf(origin);
      const at = {
        ...origin,
        requester: act.decidedBy,
        scope: { ...scope, roles: act.roles, ...(act.workspaceAdmin ? { workspaceAdmin: true as const } : {}) },
      };
      const check = await policy.check({ kind: "answer", origin: at });
      if (check.kind === "allowed") return undefined;
      refused(run, act, `the decider: ${refusalDetail(check.refusal)}`);
      return check.text;
    },
    async goOn(run, act) {
      const check = await policy.check({ kind: "go_on", origin: run.state.origin });
      if (check.kind === "allowed") return undefined;
      const stop = refusalStop(check.refusal, clock());
      refused(run, act, stop.detail);
      return stop;
    },
  };
}
