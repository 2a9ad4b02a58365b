// `npm run slack:installs [-- --json]`: the workspaces the app is installed in, from the store named
// by STORE_URL: names, ids, install date, scopes, whether tokens rotate. Never a token (the sealed
// side is not even opened). A bad store: one line, exit code 1.
import { pathToFileURL } from "node:url";
import { loadConfig } from "../../../config.js";
import { loadEnvFileOrExit } from "../../../env-file.js";
import { ConfigError, StoreUnavailableError, StoreUrlError } from "../../../errors.js";
import { createLogger } from "../../../logger.js";
import { openStore } from "../../../memory/keyv-store.js";
import { type InstalledWorkspace, listInstalls } from "./installation-store.js";

/** Pure: one line per installation, oldest first. */
export function installLines(installs: readonly InstalledWorkspace[]): string[] {
  if (installs.length === 0) return ["The app is not installed in any workspace."];
  return [...installs]
    .sort((a, b) => a.installedAt - b.installedAt)
    .map((entry) => {
      const where = entry.orgInstall
        ? `org ${entry.enterprise?.name ?? "?"} (${entry.enterprise?.id ?? "?"}), org-wide`
        : `${entry.team?.name ?? "?"} (${entry.team?.id ?? "?"})${entry.enterprise ? ` in ${entry.enterprise.name ?? entry.enterprise.id}` : ""}`;
      const rotation = entry.rotating ? "tokens rotate" : "tokens do not rotate";
      return `${where} — installed ${new Date(entry.installedAt).toISOString()}, ${rotation}, scopes: ${entry.scopes.join(", ")}`;
    });
}

async function main(argv: readonly string[]): Promise<number> {
  const json = argv.includes("--json");
  const unknown = argv.filter((arg) => arg !== "--json");
  if (unknown.length > 0) {
    process.stderr.write(`unknown argument ${unknown[0]}; usage: npm run slack:installs [-- --json]\n`);
    return 1;
  }
  const logger = createLogger(process.env.LOG_LEVEL === undefined ? "error" : "info");
  let store: Awaited<ReturnType<typeof openStore>>;
  try {
    store = await openStore(loadConfig(process.env).storeUrl, logger);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof StoreUrlError || error instanceof StoreUnavailableError) {
      process.stderr.write(`Cannot read the installations: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  try {
    const installs = await listInstalls(store);
    process.stdout.write(json ? `${JSON.stringify(installs, null, 2)}\n` : `${installLines(installs).join("\n")}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  loadEnvFileOrExit();
  process.exitCode = await main(process.argv.slice(2));
}
