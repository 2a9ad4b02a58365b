// A tool that acts as the person, without OAuth: it asks each requester to connect `docs` until
// the test says they have, and the Connect link a pause gets is a fixed address with the run in
// it. What the chat surfaces do with a run that waits for a connection is tested with it; the
// OAuth itself against a real authorization server (test/tools/mcp/auth/).
import { z } from "zod";
import type { PendingApproval, Tool } from "../../src/contracts/types.js";
import type { AgentServiceDeps } from "../../src/runs/service/create-agent-service.js";

export interface HarnessConnect {
  readonly tools: readonly Tool[];
  link(pending: PendingApproval): Promise<string>;
}

export interface ConnectStandIn extends HarnessConnect {
  /** Every pause that got a link, in order. */
  readonly pending: PendingApproval[];
  /** The person (by id) has connected docs from now on. */
  connect(personId: string): void;
  /** How many times the tool ran. */
  runs(): number;
}

export const CONNECT_BASE = "https://bot.example/oauth/connect";

export function connectStandIn(): ConnectStandIn {
  const connected = new Set<string>();
  const pending: PendingApproval[] = [];
  let runs = 0;
  const whoami: Tool<Record<string, never>> = {
    name: "docs__whoami",
    description: "says who you are at docs",
    schema: z.object({}).strict() as unknown as z.ZodType<Record<string, never>>,
    effect: "read",
    provider: { server: "docs", tool: "whoami" },
    needsConnection: async (context) => (connected.has(context.origin.requester.id) ? undefined : "docs"),
    async execute(_args, context) {
      runs += 1;
      return `you are ${context.origin.requester.id} at docs`;
    },
  };
  return {
    tools: [whoami],
    pending,
    async link(waiting) {
      pending.push(waiting);
      return `${CONNECT_BASE}?state=${waiting.runId}`;
    },
    connect: (personId) => void connected.add(personId),
    runs: () => runs,
  };
}

/** The service's dependencies for `connect`, its tools after the process's own. */
export function connectDeps(connect: HarnessConnect | undefined, own: readonly Tool[]): Partial<AgentServiceDeps> {
  if (!connect) return own.length > 0 ? { tools: own } : {};
  return { tools: [...own, ...connect.tools], connectLink: (pending) => connect.link(pending) };
}
