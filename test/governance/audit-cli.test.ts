// `npm run audit -- --since 24h --json`: the arguments, and the command as a real process
// reading the log another process wrote.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAuditArgs } from "../../src/governance/audit-cli.js";
import { createAuditLog } from "../../src/governance/audit-log.js";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { repoRoot } from "../support/repo-paths.js";

const run = promisify(execFile);
const cli = join(repoRoot, "src", "governance", "audit-cli.ts");

describe("audit arguments", () => {
  it("reads --since in minutes, hours or days, --limit and --json", () => {
    expect(parseAuditArgs(["--since", "24h", "--json"], 100_000_000)).toEqual({ kind: "ok", since: 100_000_000 - 86_400_000, json: true });
    expect(parseAuditArgs(["--since", "30m", "--limit", "5"], 10_000_000)).toEqual({
      kind: "ok",
      since: 10_000_000 - 1_800_000,
      limit: 5,
      json: false,
    });
    expect(parseAuditArgs([], 0)).toEqual({ kind: "ok", json: false });
  });

  it.each([
    [["--since", "yesterday"], /--since expects a number and a unit/],
    [["--limit", "0"], /--limit expects a whole number above 0/],
    [["--colour"], /Unknown option '--colour'.*usage: npm run audit/],
  ])("refuses %j with one line", (argv, message) => {
    expect(parseAuditArgs(argv, 0)).toEqual({ kind: "error", message: expect.stringMatching(message) });
  });
});

describe("npm run audit", () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  beforeAll(async () => {
    folder = await temporaryFolder();
  });
  afterAll(async () => folder.remove());

  it("prints the entries of the last 24 hours as JSON, newest first", { timeout: 60_000 }, async () => {
    const url = `sqlite://${join(folder.path, "bot.sqlite")}`;
    const store = await openStore(url, silentLogger);
    const base = {
      conversationKey: "slack:T1:C1:1.2",
      surface: "slack" as const,
      place: { team: "T1", channel: "C1", thread_ts: "1.2" },
      requester: { id: "U1" },
    };
    await createAuditLog(store, () => Date.now() - 3 * 86_400_000).append({
      ...base,
      kind: "approval_requested",
      runId: "old",
      tool: "post_message",
    });
    const log = createAuditLog(store);
    await log.append({ ...base, kind: "approval_requested", runId: "r1", tool: "post_message" });
    await log.append({ ...base, kind: "approval_decided", runId: "r1", decision: "approve", decidedBy: { id: "U2" } });
    await store.close();
    const { stdout } = await run(process.execPath, ["--import", "tsx", cli, "--since", "24h", "--json"], {
      env: { ...process.env, STORE_URL: url },
      timeout: 30_000,
    });
    const entries = JSON.parse(stdout) as Array<{ kind: string; runId: string; process: { pid: number } }>;
    expect(entries.map((entry) => [entry.kind, entry.runId])).toEqual([
      ["approval_decided", "r1"],
      ["approval_requested", "r1"],
    ]);
    expect(entries[0]!.process.pid).toBe(process.pid);
  });

  it("a bad argument exits with code 1 and one line", { timeout: 60_000 }, async () => {
    const failure = await run(process.execPath, ["--import", "tsx", cli, "--since", "soon"], { timeout: 30_000 }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 1, stderr: expect.stringMatching(/^--since expects a number and a unit .*\n$/) });
  });
});
