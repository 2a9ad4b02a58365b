// A real AgentService on a real store (SQLite in a temp folder, or a given URL), with a
// scripted model and a fake write tool that counts how often it really ran; and the life of the
// services one test file starts (a fresh store each, closed after the test: per-test.ts).
import { z } from "zod";
import { createAgentService, type RunningAgentService } from "../../src/runs/service/create-agent-service.js";
import type { AgentEvent, Model, TaskOrigin, Tool } from "../../src/contracts/types.js";
import { loadConfig, type Config } from "../../src/config.js";
import { silentLogger, type Logger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import { createAuthority } from "../../src/governance/authority.js";
import { fixedSettings } from "../../src/governance/settings-source.js";
import type { SurfaceHooks } from "../../src/runs/api/surface-hooks.js";
import type { HarnessConnect } from "./connect-stand-in.js";
import type { WorkQueue } from "../../src/runs/queue/work-queue.js";
import type { RunObserver } from "../../src/runs/worker/run-observer.js";
import { usePerTest, type PerTest } from "./per-test.js";

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
  return {
    surface: "console",
    conversationKey: conversation,
    requester: { id: requester, name: requester },
    scope: { dm: false, roles: [] },
    place: {},
  };
}

export interface ServiceHarness {
  readonly service: RunningAgentService;
  /** The console tools it was attached with (a test that attaches again keeps them). */
  readonly tools: readonly Tool[];
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
  /** A queue with a fault in it (default: the in-process queue). */
  queue?: WorkQueue;
  /** What watches the runs (metrics, tracing), as app.ts hands them to the service. */
  observers?: readonly RunObserver[];
  /** Console approvers besides the requester. */
  approvers?: readonly string[];
  /** What an approval nobody decided in time tells the console. */
  expired?: SurfaceHooks["expired"];
  /** False: the caller attaches its presenters first and calls service.start() (default: started here). */
  start?: boolean;
  /** Tools that act as the person and the Connect links of their pauses (connect-stand-in.ts), besides `tools`. */
  connect?: HarnessConnect;
}): Promise<ServiceHarness> {
  const config = loadConfig({ STORE_URL: options.storeUrl, MEMORY_EXTRACT_FACTS: "false", MESSAGE_DEBOUNCE_MS: "0", ...options.env });
  const real = await openStore(config.storeUrl, silentLogger);
  const store = options.wrapStore ? options.wrapStore(real) : real;
  const authority = createAuthority({ approvers: { users: { console: options.approvers ?? [] } }, settings: fixedSettings() });
  const service = createAgentService({
    config,
    model: options.model,
    store,
    logger: options.logger ?? silentLogger,
    clock: options.clock,
    authority,
    ...(options.connect ? { connectLink: options.connect.link } : {}),
    queue: options.queue,
    observers: options.observers,
  });
  const tools = [...(options.tools ?? []), ...(options.connect?.tools ?? [])];
  service.attach("console", { tools, ...(options.expired ? { expired: options.expired } : {}) });
  if (options.start !== false) await service.start();
  const events: AgentEvent[] = [];
  return {
    service,
    tools,
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

type StartOptions = Parameters<typeof startService>[0];

/** The services one test file starts. */
export interface ServiceHarnesses extends Pick<PerTest, "folder" | "sqliteUrl"> {
  /** A service on `storeUrl` (default: a fresh SQLite store), closed after the test. */
  start(options: Omit<StartOptions, "storeUrl"> & { readonly storeUrl?: string }): Promise<ServiceHarness>;
  /** Closes a service before the test ends, e.g. to start another on its store as after a restart. */
  stop(harness: ServiceHarness): Promise<void>;
}

/** Call at the top of a test file: registers the hooks that create and clean up. */
export function useServiceHarnesses(): ServiceHarnesses {
  const perTest = usePerTest();
  return {
    folder: perTest.folder,
    sqliteUrl: perTest.sqliteUrl,
    start: async (options) => perTest.closeAfter(await startService({ ...options, storeUrl: options.storeUrl ?? perTest.sqliteUrl() })),
    stop: (harness) => perTest.closeNow(harness),
  };
}
