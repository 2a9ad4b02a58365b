// `npm run audit -- --since 24h [--json] [--limit N]`: prints the audit log from the store named
// by STORE_URL, newest first; JSON for export. A bad argument or store: one line, exit code 1.
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { loadConfig } from "../config.js";
import { loadEnvFileOrExit } from "../env-file.js";
import { ConfigError, StoreUnavailableError, StoreUrlError } from "../errors.js";
import { createLogger } from "../logger.js";
import { openStore } from "../memory/keyv-store.js";
import type { KeyValueStore } from "../memory/types.js";
import { createAuditLog } from "./audit-log.js";
import { auditLine } from "./command-text.js";

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };
const USAGE = "usage: npm run audit -- [--since 24h|30m|7d] [--limit N] [--json]";

export type AuditArgs =
  | { readonly kind: "ok"; readonly since?: number; readonly limit?: number; readonly json: boolean }
  | { readonly kind: "error"; readonly message: string }
  /** `--help` (after `--`: `npm run audit --help` is npm's own help). */
  | { readonly kind: "help"; readonly message: string };

export function parseAuditArgs(argv: readonly string[], now: number): AuditArgs {
  let values: { since?: string; limit?: string; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { since: { type: "string" }, limit: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return { kind: "error", message: `${error instanceof Error ? error.message : String(error)}; ${USAGE}` };
  }
  if (values.help) return { kind: "help", message: USAGE };
  let since: number | undefined;
  if (values.since !== undefined) {
    const match = /^(\d+)([mhd])$/.exec(values.since);
    if (!match)
      return { kind: "error", message: `--since expects a number and a unit (m, h or d), like 24h (got "${values.since}"); ${USAGE}` };
    since = now - Number(match[1]) * UNIT_MS[match[2]!]!;
  }
  let limit: number | undefined;
  if (values.limit !== undefined) {
    limit = Number(values.limit);
    if (!Number.isSafeInteger(limit) || limit < 1)
      return { kind: "error", message: `--limit expects a whole number above 0 (got "${values.limit}"); ${USAGE}` };
  }
  return { kind: "ok", json: values.json === true, ...(since === undefined ? {} : { since }), ...(limit === undefined ? {} : { limit }) };
}

async function main(): Promise<number> {
  const args = parseAuditArgs(process.argv.slice(2), Date.now());
  if (args.kind === "help") {
    process.stdout.write(`${args.message}\n`);
    return 0;
  }
  if (args.kind === "error") {
    process.stderr.write(`${args.message}\n`);
    return 1;
  }
  const logger = createLogger(process.env.LOG_LEVEL === undefined ? "error" : "info");
  let store: KeyValueStore;
  try {
    store = await openStore(loadConfig(process.env).storeUrl, logger);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof StoreUrlError || error instanceof StoreUnavailableError) {
      process.stderr.write(`Cannot read the audit log: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  try {
    const entries = await createAuditLog(store).list({
      ...(args.since === undefined ? {} : { since: args.since }),
      ...(args.limit === undefined ? {} : { limit: args.limit }),
    });
    process.stdout.write(
      args.json ? `${JSON.stringify(entries, null, 2)}\n` : entries.map((entry) => `${auditLine(entry, "plain")}\n`).join(""),
    );
    return 0;
  } finally {
    await store.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  loadEnvFileOrExit();
  process.exitCode = await main();
}
