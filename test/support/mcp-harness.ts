// A real AgentService whose tools come from an MCP manager, as app.ts wires them, on its own
// store: for the tests of whole runs with MCP tools.
import { loadConfig } from "../../src/config.js";
import type { Model } from "../../src/contracts/types.js";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { SurfaceHooks } from "../../src/runs/api/surface-hooks.js";
import { createAgentService, type RunningAgentService } from "../../src/runs/service/create-agent-service.js";
import type { McpManager } from "../../src/tools/mcp/mcp-manager.js";

export interface McpService {
  readonly service: RunningAgentService;
  close(): Promise<void>;
}

/**
 * A real AgentService on its own store whose tools come from `manager`, as app.ts wires them; the
 * console attached with `consoleHooks` (none: no surface, so runs can't be shown or given files).
 */
export async function startMcpService(options: {
  readonly model: Model;
  readonly manager: McpManager;
  readonly storeUrl: string;
  readonly env?: Record<string, string>;
  readonly consoleHooks?: SurfaceHooks | null;
}): Promise<McpService> {
  const config = loadConfig({ STORE_URL: options.storeUrl, MEMORY_EXTRACT_FACTS: "false", MESSAGE_DEBOUNCE_MS: "0", ...options.env });
  const store = await openStore(config.storeUrl, silentLogger);
  const service = createAgentService({
    config,
    model: options.model,
    store,
    logger: silentLogger,
    toolSource: options.manager.tools,
    toolCatalog: options.manager.describe,
  });
  const hooks = options.consoleHooks === undefined ? { tools: [] } : options.consoleHooks;
  if (hooks) service.attach("console", hooks);
  await service.start();
  return {
    service,
    async close() {
      await service.close();
      await store.close();
    },
  };
}
