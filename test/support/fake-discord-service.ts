// A stand-in AgentService for adapter tests that need the service to misbehave or to be
// watched; everything else uses the real service (fake-discord-harness.ts).
import type { AgentService } from "../../src/runs/service.js";
import type { Surface, Tool } from "../../src/agent/types.js";

export interface StubService extends AgentService {
  readonly registered: Map<Surface, readonly Tool[]>;
  readonly expiryHandlers: Surface[];
}

export function stubService(overrides: Partial<AgentService> = {}): StubService {
  const registered = new Map<Surface, readonly Tool[]>();
  const expiryHandlers: Surface[] = [];
  return {
    registered,
    expiryHandlers,
    registerSurfaceTools: (surface, tools) => void registered.set(surface, tools),
    admit: async () => ({ kind: "admitted" }),
    registerPresenter: () => {},
    registerContextLoader: () => {},
    submit: async () => {
      throw new Error("stubService: submit was not expected");
    },
    onApprovalExpired: (surface) => void expiryHandlers.push(surface),
    ask: async () => {
      throw new Error("stubService: ask was not expected");
    },
    decide: async () => ({ kind: "unknown", message: "stubService: nothing is waiting" }),
    stop: async () => ({ kind: "not_running" }),
    feedback: {
      record: async () => ({ seq: 1, totals: { up: 0, down: 0 } }),
      comment: async () => false,
      recent: async () => [],
      totals: async () => ({ up: 0, down: 0 }),
    },
    toolList: () => ({ tools: [], servers: [] }),
    registerFiles: () => {},
    answerFile: async () => undefined,
    rememberedFacts: async () => [],
    forget: async () => 0,
    ...overrides,
  };
}
