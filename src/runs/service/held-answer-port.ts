// The hold edge (runs/holds/answer-holds.ts) as the service wires it: the surfaces attached here
// say who can see a place, show the requester the preview with its choices, tell them privately
// and post where they asked; the store keeps what waits; the audit log records each hold and
// choice. A surface that brings no audiences (the console) holds nothing.
import type { HeldAnswerChoices } from "../api/agent-service.js";
import type { AuditDraft } from "../../governance/audit-log.js";
import type { Logger } from "../../logger.js";
import type { KeyValueStore } from "../../memory/types.js";
import { type AnswerHolds, chooseHeld, mayHold } from "../holds/answer-holds.js";
import { heldAnswers } from "../holds/held-answers.js";
import type { CrossChannelReads } from "../holds/hold-decision.js";
import type { SurfaceRegistry } from "./surface-registry.js";

export interface HeldAnswerPortDeps {
  readonly mode: CrossChannelReads;
  readonly store: KeyValueStore;
  readonly surfaces: SurfaceRegistry;
  /** The audit log's background append; none: holds are not audited (no settings file). */
  readonly audit?: (draft: AuditDraft) => void;
  readonly logger: Logger;
  readonly clock: () => number;
}

export function heldAnswerPort(deps: HeldAnswerPortDeps): AnswerHolds {
  const { surfaces } = deps;
  return {
    mode: deps.mode,
    audiences: (surface) => surfaces.hooksOf(surface)?.audiences,
    held: heldAnswers(deps.store),
    offer: async (origin, preview, runId) => (await surfaces.hooksOf(origin.surface)?.offerHeld?.(origin, preview, runId)) ?? false,
    tell: (origin, text) => surfaces.hooksOf(origin.surface)?.sendPrivately?.(origin, text) ?? Promise.resolve(undefined),
    post: async (origin, text) => (await surfaces.hooksOf(origin.surface)?.postHere?.(origin, text)) ?? false,
    audit: async (draft) => deps.audit?.(draft),
    logger: deps.logger,
    clock: deps.clock,
  };
}

export const heldAnswerChoices = (holds: AnswerHolds): HeldAnswerChoices => ({
  mayHold: (origin, channels) => mayHold(holds, origin, channels),
  choose: (runId, choice, by) => chooseHeld(holds, runId, choice, by),
});
