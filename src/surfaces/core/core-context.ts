// What every flow of the core shares for one attached surface.
import type { Governance } from "../../governance/governance.js";
import type { Actor } from "../../governance/authority.js";
import type { Logger } from "../../logger.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { AgentService } from "../../runs/service.js";
import type { ApprovalRefs } from "./approval-refs.js";
import type { ChatSurface, Spot } from "./surface.js";

export interface CoreContext<Clicked, Ref> {
  readonly surface: ChatSurface<Clicked, Ref>;
  readonly service: AgentService;
  readonly governance: Governance;
  readonly store: KeyValueStore;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly refs: ApprovalRefs<Ref>;
  /** False from the moment the surface stops taking events: clicks and commands that still arrive are told to come back. */
  accepting(): boolean;
  /** core/private-note.ts's rule on this surface. Never throws. */
  tell(at: Spot, text: string, publicFallback?: string): Promise<void>;
}

/** The person acting at `at`, as the authority sees them. */
export function actorAt(at: Spot): Actor {
  return { surface: at.origin.surface, id: at.origin.requester.id, roles: at.origin.scope?.roles ?? [] };
}
