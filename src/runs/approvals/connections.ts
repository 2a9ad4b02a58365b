// A run that waits for its requester to connect an MCP server goes on when they have: the
// callback's grant (person, server, run, call) is checked against the stored pause, then claimed
// like an approval, so the run resumes once whatever the number of callbacks, processes or restarts.
import type { ConnectGrant, GrantCheck } from "../../tools/mcp/auth/connect-flow.js";
import { ownerKey } from "../../tools/mcp/auth/connection-store.js";
import { ownerOf } from "../../tools/mcp/person-server.js";
import { type ApprovalStore, connectionClaimOf, type StoredRun } from "./approval-store.js";

/** The run of a link that only connects (a schedule's owner, whose slot was skipped): no run waits for it. */
export const NO_RUN = "-";

export interface ConnectionGrants {
  /** Whether the run still waits for this person to connect this server. */
  check(grant: ConnectGrant): Promise<GrantCheck>;
  /** Resumes the run, at most once across callbacks and processes. Never rejects. */
  connected(grant: ConnectGrant): Promise<void>;
}

export interface ConnectionGrantsDeps {
  readonly approvals: ApprovalStore;
  readonly clock: () => number;
  /** Queues the rest of the run (see Runner.resume); the surface's presenter shows it. */
  readonly resume: (run: StoredRun) => Promise<unknown>;
  readonly onError: (error: unknown, grant: ConnectGrant) => void;
}

export function createConnectionGrants(deps: ConnectionGrantsDeps): ConnectionGrants {
  const { approvals, clock } = deps;

  async function waiting(grant: ConnectGrant): Promise<{ readonly kind: GrantCheck; readonly run?: StoredRun }> {
    // Bound to the person and the server by its signature; it connects them and resumes nothing.
    if (grant.runId === NO_RUN) return { kind: "ok" };
    const loaded = await approvals.load(grant.runId);
    if (loaded.kind !== "found") return { kind: "gone" };
    const { run } = loaded;
    const { pending } = run;
    if (pending.callId !== grant.callId || pending.connect?.server !== grant.server || clock() >= pending.expiresAt)
      return { kind: "gone" };
    if (ownerKey(ownerOf(run.state.origin)) !== ownerKey(grant.owner)) return { kind: "other_person" };
    if ((await approvals.decisionOf(grant.runId, connectionClaimOf(grant.callId))) !== undefined) return { kind: "gone" };
    return { kind: "ok", run };
  }

  return {
    check: async (grant) => (await waiting(grant)).kind,
    async connected(grant) {
      try {
        const { kind, run } = await waiting(grant);
        if (kind !== "ok" || !run) return;
        const requester = run.pending.requester;
        const claim = await approvals.claim(
          grant.runId,
          connectionClaimOf(grant.callId),
          { decision: "approve", decidedBy: requester },
          clock(),
        );
        if (claim.won) await deps.resume(run);
      } catch (error) {
        deps.onError(error, grant);
      }
    },
  };
}
