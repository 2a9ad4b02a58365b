// A stand-in AgentService for adapter tests that need the service to misbehave or to be
// watched; everything else uses the real service (discord-harness.ts).
import type { AgentService } from "../../src/runs/api/agent-service.js";
import type { SurfaceHooks } from "../../src/runs/api/surface-hooks.js";
import type { Surface } from "../../src/contracts/types.js";

export interface StubService extends AgentService {
  /** What each surface attached with. */
  readonly attached: Map<Surface, SurfaceHooks>;
}

export function stubService(overrides: Partial<AgentService> = {}): StubService {
  const attached = new Map<Surface, SurfaceHooks>();
  return {
    attached,
    attach: (surface, hooks) => void attached.set(surface, hooks),
    submit: async () => {
      throw new Error("stubService: submit was not expected");
    },
    ask: async () => {
      throw new Error("stubService: ask was not expected");
    },
    edit: async () => {
      throw new Error("stubService: edit was not expected");
    },
    deleteQuestion: async () => {
      throw new Error("stubService: deleteQuestion was not expected");
    },
    decide: async () => ({ kind: "unknown", message: "stubService: nothing is waiting" }),
    stop: async () => ({ kind: "not_running" }),
    forms: {
      lookup: async () => ({ kind: "closed", closed: { kind: "unknown" } }),
      reply: async () => ({ kind: "closed", closed: { kind: "unknown" } }),
    },
    feedback: {
      record: async () => ({ seq: 1, totals: { up: 0, down: 0 } }),
      comment: async () => false,
      recent: async () => [],
      totals: async () => ({ up: 0, down: 0 }),
      erase: async () => 0,
    },
    answerFile: async () => undefined,
    waitingApprovals: async () => [],
    heldAnswers: { mayHold: () => false, choose: async () => "stubService: nothing is held" },
    memory: {
      facts: async () => [],
      forget: async () => ({ facts: 0, turns: 0, files: 0 }),
      earlierTurns: async () => 0,
      startOver: async () => 0,
    },
    tools: { list: () => ({ tools: [], servers: [] }) },
    ...overrides,
  };
}
