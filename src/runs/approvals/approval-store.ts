// Paused runs and the decisions on them, in the shared store. A stored run is signed (HMAC,
// with a key that is never in the store: see approval-key.ts) so an altered copy is refused; a
// decision is claimed with an atomic set-if-absent so it is applied at most once, whichever
// process or restart the click lands on.
import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { Logger } from "../../logger.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { ApprovalKey } from "./approval-key.js";
import { PersonSchema, RunStateSchema, SurfaceSchema, type RunState } from "../../agent/loop/run-state.js";
import { WriteProvenanceSchema } from "../../agent/context/seen-sources.js";
import { canonicalJson } from "../../agent/tools/signature.js";
import type { Decision, PendingApproval, Person, Surface } from "../../contracts/types.js";

/** A decided or expired approval is remembered this long, so late clicks learn who decided. */
const DECISION_MEMORY_MS = 24 * 60 * 60_000;
/** A paused run outlives its approval window a while, so a late click can be told it expired. */
const EXPIRED_RUN_GRACE_MS = 60 * 60_000;
const RUN_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const PendingSchema = z.object({
  runId: z.string(),
  callId: z.string(),
  tool: z.string(),
  source: z.string().optional(),
  args: z.unknown(),
  requester: PersonSchema,
  origin: RunStateSchema.shape.origin,
  expiresAt: z.number(),
  connect: z.object({ server: z.string() }).optional(),
  provenance: WriteProvenanceSchema.optional(),
});

/**
 * What a record keeps of a pause: everything but a Connect link, which whoever holds it could use
 * to connect their own account for the person's run. It is made when the pause is shown (worker/connect-link.ts).
 */
const withoutLink = (pending: PendingApproval): PendingApproval =>
  pending.connect ? { ...pending, connect: { server: pending.connect.server } } : pending;

/**
 * The call a connection is claimed under: not the call's own id, which an approval of the same
 * call claims once the person connected (a write that waited for its connection, then asks).
 */
export const connectionClaimOf = (callId: string) => `${callId}#connect`;
const RecordSchema = z.object({ state: RunStateSchema, pending: PendingSchema, mac: z.string() });
const ClaimSchema = z.object({ decision: z.enum(["approve", "deny", "expired"]), decidedBy: PersonSchema.optional(), at: z.number() });
const IndexEntrySchema = z.object({ runId: z.string(), callId: z.string(), expiresAt: z.number(), surface: SurfaceSchema });

export interface StoredRun {
  readonly state: RunState;
  readonly pending: PendingApproval;
}

export type Claim = { readonly decision: Decision; readonly decidedBy: Person } | { readonly decision: "expired" };
export type ClaimRecord = z.infer<typeof ClaimSchema>;

export type LoadResult =
  | { readonly kind: "found"; readonly run: StoredRun }
  | { readonly kind: "missing" }
  | { readonly kind: "invalid"; readonly reason: string };

export interface DueApproval {
  readonly runId: string;
  readonly callId: string;
  readonly expiresAt: number;
  readonly surface: Surface;
}

export interface ApprovalStore {
  save(run: StoredRun): Promise<void>;
  load(runId: string): Promise<LoadResult>;
  /** True when this call won the decision; otherwise the decision that was there first. */
  claim(
    runId: string,
    callId: string,
    claim: Claim,
    now: number,
  ): Promise<{ readonly won: true } | { readonly won: false; readonly existing?: ClaimRecord }>;
  /** The decision taken on a call, if any (also after its run record is gone). */
  decisionOf(runId: string, callId: string): Promise<ClaimRecord | undefined>;
  remove(runId: string): Promise<void>;
  /** Approvals this process knows are waiting (from the store's index), soonest first. */
  waiting(): Promise<DueApproval[]>;
}

const runKey = (runId: string) => `approval:run:${runId}`;
const claimKey = (runId: string, callId: string) => `approval:decision:${runId}:${callId}`;
/** A store set (one member per waiting approval), so processes sharing Redis never lose each other's entries. */
const WAITING_SET_KEY = "approval:waiting";

function isWellFormedRunId(runId: string): boolean {
  return RUN_ID_PATTERN.test(runId);
}

/** Does no I/O itself: the key is loaded on each use that needs it, so a failure at start does not last. */
export function createApprovalStore(options: {
  store: KeyValueStore;
  key: ApprovalKey;
  logger: Logger;
  clock: () => number;
}): ApprovalStore {
  const { store, key, logger, clock } = options;
  const sign = async (run: StoredRun) =>
    createHmac("sha256", await key())
      .update(canonicalJson({ state: run.state, pending: run.pending }))
      .digest("base64url");

  /** The set's members that parse, with the member each came from (the set is untrusted). */
  const listed = async (): Promise<Array<DueApproval & { readonly member: string }>> =>
    (await store.setMembers(WAITING_SET_KEY)).flatMap((member) => {
      try {
        const parsed = IndexEntrySchema.safeParse(JSON.parse(member));
        return parsed.success ? [{ ...parsed.data, member }] : [];
      } catch {
        return [];
      }
    });
  const unlist = async (runId: string, keep?: string): Promise<void> => {
    const members = (await listed()).filter((entry) => entry.runId === runId && entry.member !== keep);
    await Promise.all(members.map((entry) => store.removeFromSet(WAITING_SET_KEY, entry.member)));
  };

  const decisionOf = async (runId: string, callId: string): Promise<ClaimRecord | undefined> => {
    if (!isWellFormedRunId(runId)) return undefined;
    const existing = ClaimSchema.safeParse(await store.get(claimKey(runId, callId)));
    return existing.success ? existing.data : undefined;
  };

  return {
    decisionOf,

    async save(given) {
      const run: StoredRun = { state: given.state, pending: withoutLink(given.pending) };
      const ttl = Math.max(1, run.pending.expiresAt - clock()) + EXPIRED_RUN_GRACE_MS;
      await store.set(runKey(run.state.runId), { ...run, mac: await sign(run) }, ttl);
      const entry: DueApproval = {
        runId: run.state.runId,
        callId: run.pending.callId,
        expiresAt: run.pending.expiresAt,
        surface: run.state.origin.surface,
      };
      const member = JSON.stringify(entry);
      await store.addToSet(WAITING_SET_KEY, member);
      // A run that paused before on another call is listed once, under its latest.
      await unlist(entry.runId, member);
    },

    async load(runId) {
      if (!isWellFormedRunId(runId)) return { kind: "invalid", reason: "the approval id is not well formed" };
      const raw = await store.get(runKey(runId));
      if (raw === undefined) return { kind: "missing" };
      const parsed = RecordSchema.safeParse(raw);
      if (!parsed.success) {
        logger.error({ runId, issues: parsed.error.issues.slice(0, 3) }, "a stored paused run failed validation; refused");
        return { kind: "invalid", reason: "the stored request is damaged" };
      }
      const run: StoredRun = { state: parsed.data.state as RunState, pending: parsed.data.pending as PendingApproval };
      const expected = Buffer.from(await sign(run));
      const given = Buffer.from(parsed.data.mac);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
        logger.error({ runId }, "a stored paused run does not match its signature (altered?); refused");
        return { kind: "invalid", reason: "the stored request was altered" };
      }
      const waiting = run.state.pending?.calls[0];
      if (!waiting || waiting.id !== run.pending.callId || waiting.name !== run.pending.tool || run.state.runId !== runId) {
        return { kind: "invalid", reason: "the stored request does not match the call it was shown for" };
      }
      return { kind: "found", run };
    },

    async claim(runId, callId, claim, now) {
      const record: ClaimRecord = { ...claim, at: now };
      if (await store.setIfAbsent(claimKey(runId, callId), record, DECISION_MEMORY_MS)) return { won: true };
      return { won: false, existing: await decisionOf(runId, callId) };
    },

    async remove(runId) {
      await store.delete(runKey(runId));
      await unlist(runId);
    },

    async waiting() {
      return (await listed())
        .map(({ runId, callId, expiresAt, surface }) => ({ runId, callId, expiresAt, surface }))
        .sort((a, b) => a.expiresAt - b.expiresAt);
    },
  };
}
