// What a person's click asks of a paused or running run (Approve, Deny, Stop), and what the runs
// answer: typed results the adapters render, never strings to parse.
import type { Decision, Person, RunOutcome, Surface } from "../../contracts/types.js";
import type { StopResult } from "../worker/run-stops.js";
import type { ReplyHandle } from "./task.js";

export interface DecisionRequest {
  readonly runId: string;
  readonly callId: string;
  readonly decision: Decision;
  readonly decidedBy: Person;
  /** The person's roles where they clicked (Discord), for the authority's approver roles. */
  readonly roles?: readonly string[];
  /** The platform names them an admin of the workspace (see RequestScope). */
  readonly workspaceAdmin?: boolean;
  /** How the surface answers through the click (Discord: its own interaction token), for the rest of the run. */
  readonly reply?: ReplyHandle;
}

export type DecisionResult =
  /**
   * `outcome` is absent when the surface's presenter shows the rest of the run (it may run in another process);
   * `note` is for the person who decided (the decision is recorded, but the run could not go on at once).
   */
  | { readonly kind: "resumed"; readonly decision: Decision; readonly outcome?: RunOutcome; readonly note?: string }
  | { readonly kind: "not_allowed"; readonly requester: Person }
  /** Governance refuses the person deciding now (access, a daily limit): `text` tells them why, privately; nothing changed. */
  | { readonly kind: "refused"; readonly text: string }
  | { readonly kind: "already_decided"; readonly decision: Decision; readonly decidedBy: Person }
  | { readonly kind: "expired"; readonly outcome?: RunOutcome }
  | { readonly kind: "unknown"; readonly message: string };

export interface StopRequest {
  readonly runId: string;
  readonly stoppedBy: Person;
  /** Where the Stop was pressed: the run's own surface, and its workspace (whose admins may stop anyone's run there). */
  readonly surface: Surface;
  readonly workspace?: string;
  /** The person's roles there (Discord), for the authority's approver roles. */
  readonly roles?: readonly string[];
  /** The platform names them an admin of the workspace (see RequestScope). */
  readonly workspaceAdmin?: boolean;
}

export type { StopResult };
