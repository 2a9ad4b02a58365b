// A real AgentService on a real store (SQLite in a temp folder, or a given URL), with a
// scripted model and a fake write tool that counts how often it really ran.
import { z } from "zod";
import { createAgentService, type RunningAgentService } from "../../src/runs/agent-service.js";
import type { AgentEvent, Model, TaskOrigin, Tool } from "../../src/agent/types.js";
import { loadConfig, type Config } from "../../src/config.js";
import { silentLogger, type Logger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../src/memory/types.js";

export interface NoteTool {
  readonly tool: Tool<{ text: string }>;
  readonly posted: string[];
}

/** A write tool: each real execution appends its text to `posted`. */
export function noteTool(): NoteTool {
  const posted: string[] = [];
  return {
    posted,
    tool: {
      name: "post_note",
      description: "posts a note where everyone sees it",
      schema: z.object({ text: z.string() }),
      effect: "write",
      execute: async ({ text }) => {
        posted.push(text);
        return `posted: ${text}`;
      },
    },
  };
}

export function originFor(requester = "alice", conversation = "console:approvals"): TaskOrigin {
  return { surface: "console", conversationKey: conversation, requester: { id: requester, name: requester }, place: {} };
}

export interface ServiceHarness {
  readonly service: RunningAgentService;
  readonly store: KeyValueStore;
  readonly config: Config;
  readonly events: AgentEvent[];
  readonly sink: (event: AgentEvent) => void;
  close(): Promise<void>;
}

export async function startService(options: {
  model: Model;
  storeUrl: string;
  tools?: readonly Tool[];
  env?: Record<string, string>;
  clock?: () => number;
  logger?: Logger;
  /** Puts a fault or a recorder between the service and the real store. */
  wrapStore?: (store: KeyValueStore) => KeyValueStore;
  /** False: the caller attaches its presenters first and calls service.start() (default: started here). */
  start?: boolean;
}): Promise<ServiceHarness> {
  const config = loadConfig({ STORE_URL: options.storeUrl, MEMORY_EXTRACT_FACTS: "false", ...options.env });
  const real = await openStore(config.storeUrl, silentLogger);
  const store = options.wrapStore ? options.wrapStore(real) : real;
  const service = createAgentService({ config, model: options.model, store, logger: options.logger ?? silentLogger, clock: options.clock });
  service.registerSurfaceTools("console", options.tools ?? []);
  if (options.start !== false) await service.start();
  const events: AgentEvent[] = [];
  return {
    service,
    store,
    config,
    events,
    sink: (event) => events.push(event),
    async close() {
      await service.close();
      await store.close();
    },
  };
}
