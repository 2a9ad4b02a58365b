// What every flow of the core shares for one attached surface.
import type { PriceTable } from "../../cost/prices.js";
import type { Governance } from "../../governance/governance.js";
import type { Actor } from "../../governance/authority.js";
import type { Logger } from "../../logger.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { AgentService } from "../../runs/api/agent-service.js";
import type { ApprovalRefs } from "./approval-refs.js";
import type { RunViewDeps } from "./run-view.js";
import type { Schedules } from "../../schedules/scheduler.js";
import type { Spot } from "./spot.js";
import type { ChatSurface } from "./surface.js";
import type { UnfinishedMessages } from "./unfinished-messages.js";

/** What the core needs of the schedules engine (src/schedules/scheduler.ts). */
export type CoreSchedules = Pick<Schedules, "run" | "attachSurface">;

export interface CoreContext<Clicked, Ref> {
  readonly surface: ChatSurface<Clicked, Ref>;
  readonly service: AgentService;
  readonly governance: Governance;
  readonly store: KeyValueStore;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly refs: ApprovalRefs<Ref>;
  /** The messages a run's display holds open, kept for a process that takes the run over. */
  readonly unfinished: UnfinishedMessages;
  /** The schedule commands' engine; absent in a process without schedules (they answer so). */
  readonly schedules?: CoreSchedules;
  /** What `usage` prices tokens at (MODEL_PRICES over the defaults). */
  readonly prices: PriceTable;
  /** False from the moment the surface stops taking events: clicks and commands that still arrive are told to come back. */
  accepting(): boolean;
  /** Where an answer's files come from for a run of this conversation, on a surface that uploads them. */
  answerFiles(conversationKey: string): RunViewDeps<Ref>["files"];
  /** core/private-note.ts's rule on this surface. Never throws. */
  tell(at: Spot, text: string, publicFallback?: string): Promise<void>;
}

/** The person acting at `at`, as the authority sees them. */
export function actorAt(at: Spot): Actor {
  const scope = at.origin.scope;
  return {
    surface: at.origin.surface,
    ...(scope?.workspace ? { workspace: scope.workspace } : {}),
    id: at.origin.requester.id,
    roles: scope?.roles ?? [],
    ...(scope?.workspaceAdmin ? { workspaceAdmin: true } : {}),
  };
}
