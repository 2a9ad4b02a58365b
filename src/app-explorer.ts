// The run explorer's part of the start (/admin): off without ADMIN_TOKEN, and then /admin answers
// 404 on PORT (src/ops/explorer/explorer.ts); loaded only where it can be served.
import type { ExplorerOptions } from "./ops/explorer/explorer.js";
import type { ResourceStack } from "./resource-stack.js";

export type ExplorerStart =
  | { readonly kind: "started"; readonly port?: number; readonly url?: string }
  | { readonly kind: "failed"; readonly message: string };

/** Opens the explorer when it is on (or the ops port must answer its 404s), its close deferred to `stack`. */
export async function openExplorer(options: ExplorerOptions, stack: ResourceStack): Promise<ExplorerStart> {
  const { config } = options;
  if (!config.admin && !options.opsPort) return { kind: "started" };
  try {
    const { startExplorer } = await import("./ops/explorer/explorer.js");
    const explorer = await startExplorer(options);
    stack.defer("clients", "the run explorer", () => explorer.close());
    return {
      kind: "started",
      ...(explorer.port === undefined ? {} : { port: explorer.port }),
      ...(explorer.url === undefined ? {} : { url: explorer.url }),
    };
  } catch (error) {
    const port = config.admin?.port ?? config.port;
    return {
      kind: "failed",
      message: `Cannot start: the run explorer's port ${port}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
