// `npm run replay -- --since 24h [--until …] [--channel C] [--set NAME=value …] [--json]`, or
// `npm run replay <run id> …` (`--run <id>` after `--`): replays the stored runs of that window, or
// those runs, under the changed settings and prints what would end differently. It opens the store read-only (no owner lock, no platform client, no write), so
// it runs beside a live bot on the same SQLite file or Redis.
import { parseArgs } from "node:util";
import { loadConfig } from "../../config.js";
import { priceTable } from "../../cost/prices.js";
import { ConfigError, StoreUnavailableError, StoreUrlError } from "../../errors.js";
import { createLogger } from "../../logger.js";
import { openStore } from "../../memory/keyv-store.js";
import { createRunRecordStore } from "../../memory/run-records/record-store.js";
import { parseOverrides } from "./replay-settings.js";
import { replayRecord, type ReplayResult } from "./replay-run.js";
import { replayTotals, reportText } from "./replay-report.js";

const USAGE =
  "usage: npm run replay -- --since 24h [--until 2026-12-01T12:00Z] [--channel C123] [--set AGENT_MAX_STEPS=6 …] [--json], or npm run replay <run id> [-- --set …]";
const UNITS: Record<string, number> = { m: 60_000, h: 60 * 60_000, d: 24 * 60 * 60_000 };
const PAGE = 200;

/** "24h", "30m", "7d", or a date; undefined when it is none of them. */
export function instantOf(text: string, now: number): number | undefined {
  const relative = /^(\d{1,6})([mhd])$/.exec(text.trim());
  if (relative) return now - Number(relative[1]) * UNITS[relative[2]!]!;
  const parsed = Date.parse(text);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/** Returns the exit code; writes the report to `out` and problems (one line) to `err`. */
export async function replayCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  out: (text: string) => void,
  err: (text: string) => void,
): Promise<number> {
  let args: ReturnType<typeof parse>["values"];
  let positionals: readonly string[];
  try {
    ({ values: args, positionals } = parse(argv));
  } catch (error) {
    err(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    out(USAGE);
    return 0;
  }
  const now = Date.now();
  // `npm run replay --run <id>` reaches here as the id alone: npm takes `--run` for one of its own flags.
  const runIds = [...(args.run ?? []), ...positionals];
  const since = args.since === undefined ? undefined : instantOf(args.since, now);
  const until = args.until === undefined ? now : instantOf(args.until, now);
  if (runIds.length === 0 && (since === undefined || until === undefined)) {
    err(`${args.since === undefined ? "--since is required" : "--since and --until take 24h, 30m, 7d or a date"}\n${USAGE}`);
    return 2;
  }
  const overrides = parseOverrides(args.set ?? []);
  if (overrides.kind === "invalid") {
    err(overrides.message);
    return 2;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      err(`Configuration error: ${error.message}`);
      return 1;
    }
    throw error;
  }
  let store: Awaited<ReturnType<typeof openStore>>;
  try {
    store = await openStore(config.storeUrl, createLogger("error"), { readOnly: true });
  } catch (error) {
    if (error instanceof StoreUrlError || error instanceof StoreUnavailableError) {
      err(`Cannot read the store: ${error.message}`);
      return 1;
    }
    throw error;
  }
  try {
    const records = createRunRecordStore(store, { days: config.records.retentionDays, max: config.records.retentionMax });
    const prices = priceTable(config.prices);
    const results: ReplayResult[] = [];
    for (const runId of runIds) {
      const loaded = await records.load(runId);
      if (loaded.kind === "found") results.push(await replayRecord(loaded.record, overrides.overrides, prices));
      else
        results.push({
          kind: "not_replayable",
          runId,
          reason:
            loaded.kind === "missing"
              ? "there is no record of it (retention may have removed it)"
              : `its record can't be read: ${loaded.reason}`,
        });
    }
    let cursor: string | undefined;
    if (since !== undefined && until !== undefined)
      do {
        const page = await records.list({
          since,
          until,
          limit: PAGE,
          ...(args.channel ? { channel: args.channel } : {}),
          ...(cursor ? { cursor } : {}),
        });
        for (const summary of page.runs) {
          const loaded = await records.load(summary.runId);
          if (loaded.kind === "found") results.push(await replayRecord(loaded.record, overrides.overrides, prices));
          else if (loaded.kind === "invalid")
            results.push({ kind: "not_replayable", runId: summary.runId, reason: `its record can't be read: ${loaded.reason}` });
        }
        cursor = page.next;
      } while (cursor);
    out(args.json ? JSON.stringify({ runs: results, total: replayTotals(results) }) : reportText(results));
    return 0;
  } finally {
    await store.close();
  }
}

const OPTIONS = {
  since: { type: "string" },
  until: { type: "string" },
  channel: { type: "string" },
  set: { type: "string", multiple: true },
  json: { type: "boolean" },
  run: { type: "string", multiple: true },
  help: { type: "boolean", short: "h" },
} as const;
// A run id is 8 base64url characters, so one in 64 starts with a dash and would read as an option.
const DASHED_RUN_ID = /^-[A-Za-z0-9_-]{7}$/;

function parse(argv: readonly string[]) {
  return parseArgs({ args: withDashedRunIds(argv), options: OPTIONS, strict: true, allowPositionals: true });
}

/** Puts a run id that starts with a dash where `parseArgs` reads it as an id: `--run=<id>`, or after `--`. */
function withDashedRunIds(argv: readonly string[]): string[] {
  const options: string[] = [];
  const ids: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === "--") {
      ids.push(...argv.slice(index + 1));
      break;
    }
    const name = arg.startsWith("--") ? arg.slice(2) : undefined;
    const option = name === undefined ? undefined : OPTIONS[name as keyof typeof OPTIONS];
    if (option?.type === "string" && index + 1 < argv.length) {
      options.push(`${arg}=${argv[++index]}`);
    } else if (option === undefined && DASHED_RUN_ID.test(arg)) {
      ids.push(arg);
    } else options.push(arg);
  }
  return ids.length === 0 ? options : [...options, "--", ...ids];
}
