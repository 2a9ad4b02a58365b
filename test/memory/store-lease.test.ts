// The SQLite store's owner lock: a holder that renews it keeps it against every other process,
// whatever host that one claims to be on; a holder that stopped renewing (or died on this host)
// loses it with a log line naming it; a lock written by the first version still decides rightly;
// and processes racing for it end with one owner.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, readlinkSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { createInterface } from "node:readline";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claimStoreOwnership, type LeaseClock } from "../../src/memory/store-lease.js";
import { capturingLogger } from "../support/capturing-logger.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { fixturePath, supportPath } from "../support/repo-paths.js";

const FIRST_VERSION_LOCK = readFileSync(fixturePath("store-owner-lock-first-version.json"), "utf8");
const HOLDER = supportPath("lease-holder-process.ts");
const FAST = { heartbeatMs: 100, staleMs: 1_000 };

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let database: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  folder = await temporaryFolder();
  database = `${folder.path}/bot.sqlite`;
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  await folder.remove();
});

/** Time that moves only when the claim sleeps or the test says so; each heartbeat runs when its time comes. */
function fakeClock(start = Date.now()) {
  let now = start;
  const tickers = new Set<{ ms: number; due: number; tick: () => void }>();
  const advance = (ms: number) => {
    const until = now + ms;
    for (;;) {
      const next = [...tickers].sort((a, b) => a.due - b.due)[0];
      if (!next || next.due > until) break;
      now = next.due;
      next.due += next.ms;
      next.tick();
    }
    now = until;
  };
  const clock: LeaseClock = {
    now: () => now,
    every(ms, tick) {
      const ticker = { ms, due: now + ms, tick };
      tickers.add(ticker);
      return () => tickers.delete(ticker);
    },
    sleep: async (ms) => advance(ms),
  };
  return { clock, advance, tickers: () => tickers.size };
}

/** The pid of a process that ran and exited, so it is surely not alive. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""]);
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid as number;
}

const lockFile = () => `${database}.owner`;
const readLock = () => JSON.parse(readFileSync(lockFile(), "utf8")) as Record<string, unknown>;
const currentLock = (owner: { instance: string; pid: number; host: string }, renewedAt: number) =>
  writeFileSync(lockFile(), JSON.stringify({ ...owner, renewedAt }));

type Answer = { kind?: "owned" | "taken"; message?: string; released?: boolean };

/** A lease-holder child: `ask` sends one command and resolves with its one-line answer. */
function holder(env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["--import", "tsx", HOLDER], {
    env: { PATH: process.env.PATH ?? "", LEASE_DB: database, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  children.push(child);
  const answers: Answer[] = [];
  const waiting: Array<(answer: Answer) => void> = [];
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const answer = JSON.parse(line) as Answer;
    const next = waiting.shift();
    if (next) next(answer);
    else answers.push(answer);
  });
  const answer = () => new Promise<Answer>((resolve) => (answers.length > 0 ? resolve(answers.shift()!) : waiting.push(resolve)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    exited,
    answer,
    ask(command: string): Promise<Answer> {
      child.stdin!.write(`${command}\n`);
      return answer();
    },
  };
}

describe("one process owns an SQLite store", () => {
  it("refuses a second live process on this host at once, with one line naming the owner and the way out", async () => {
    const first = await claimStoreOwnership(database);
    expect(first.kind).toBe("owned");
    // The test runner's parent stands for another live bot process.
    const second = await claimStoreOwnership(database, { identity: { pid: process.ppid } });
    expect(second).toMatchObject({ kind: "taken" });
    const message = second.kind === "taken" ? second.message : "";
    expect(message).toContain(`pid ${process.pid} on ${hostname()}`);
    expect(message).toContain("redis://");
    expect(message).toContain("renewed every 5 s and taken over once it is not renewed for 30 s");
    expect(message).not.toContain("\n");
    if (first.kind === "owned") first.release();
    expect(existsSync(lockFile())).toBe(false);
    expect((await claimStoreOwnership(database, { identity: { pid: process.ppid } })).kind).toBe("owned");
  });

  it("names its holder by a random instance id, so two holders with pid 1 are told apart", async () => {
    const time = fakeClock();
    const first = await claimStoreOwnership(database, { identity: { pid: 1, host: "container-a" }, clock: time.clock });
    const { instance } = readLock();
    expect(instance).toMatch(/^[0-9a-f-]{36}$/);
    // Another container on the same volume: same pid, its own host name, the lock renewed a moment ago.
    const second = await claimStoreOwnership(database, { identity: { pid: 1, host: "container-b" }, clock: time.clock });
    expect(second.kind).toBe("taken");
    expect(readLock().instance).toBe(instance);
    if (first.kind === "owned") first.release();
  });

  it("takes over a lock not renewed for 30 s, whatever its host, with a log line naming the old owner", async () => {
    const { logger, warnings } = capturingLogger();
    const now = Date.now();
    currentLock({ instance: "old-instance", pid: 1, host: "elsewhere" }, now - 30_000);
    const claim = await claimStoreOwnership(database, { logger, clock: fakeClock(now).clock });
    expect(claim.kind).toBe("owned");
    expect(readLock().instance).not.toBe("old-instance");
    expect(warnings().map((line) => line.msg)).toEqual([
      "took over the store's owner lock from instance old-instance, pid 1 on elsewhere (not renewed for 30 s)",
    ]);
    if (claim.kind === "owned") claim.release();
  });

  it("takes over at once a lock whose process died on this host (kill -9), also a lock of its own pid", async () => {
    const { logger, warnings } = capturingLogger();
    currentLock({ instance: "crashed", pid: await deadPid(), host: hostname(), ...namespace() }, Date.now());
    const claim = await claimStoreOwnership(database, { logger });
    expect(claim.kind).toBe("owned");
    if (claim.kind === "owned") claim.release();
    // A container restarted after a crash: pid 1 again, the same host name and namespace.
    currentLock({ instance: "before-restart", pid: process.pid, host: hostname(), ...namespace() }, Date.now());
    expect((await claimStoreOwnership(database, { logger })).kind).toBe("owned");
    expect(warnings().map((line) => line.msg)).toEqual([
      expect.stringMatching(/^took over the store's owner lock from instance crashed, pid \d+ on .*\(its process is no longer running\)$/),
      expect.stringContaining("from instance before-restart"),
    ]);
  });

  it("watches an unreadable lock until it is 30 s old before taking it (it may be being written)", async () => {
    const { logger, warnings } = capturingLogger();
    writeFileSync(lockFile(), "");
    const time = fakeClock();
    const claim = await claimStoreOwnership(database, { logger, clock: time.clock });
    expect(claim.kind).toBe("owned");
    expect(time.clock.now() - Date.now()).toBeGreaterThanOrEqual(29_000);
    expect(warnings()[0]!.msg).toBe(
      "took over the store's owner lock from an unreadable lock (its file could not be read and was 30 s old)",
    );
    if (claim.kind === "owned") claim.release();

    writeFileSync(lockFile(), "garbage");
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(lockFile(), minuteAgo, minuteAgo);
    const at = Date.now();
    const again = await claimStoreOwnership(database, { clock: fakeClock(at).clock });
    expect(again.kind).toBe("owned");
  });

  it("renews its lock at each heartbeat, stops at release, and a holder that lost it says so and stops", async () => {
    const time = fakeClock();
    const { logger, lines } = capturingLogger();
    const claim = await claimStoreOwnership(database, { logger, clock: time.clock });
    const renewedAt = readLock().renewedAt as number;
    time.advance(5_000);
    expect(readLock().renewedAt).toBe(renewedAt + 5_000);
    if (claim.kind === "owned") claim.release();
    expect(time.tickers()).toBe(0);
    expect(existsSync(lockFile())).toBe(false);

    const lost = await claimStoreOwnership(database, { logger, clock: time.clock });
    currentLock({ instance: "thief", pid: 1, host: "elsewhere" }, time.clock.now());
    time.advance(5_000);
    expect(time.tickers()).toBe(0);
    expect(readLock().instance).toBe("thief");
    expect(lines.filter((line) => line.level === 50).map((line) => line.msg)).toEqual([
      "lost the store's owner lock to instance thief, pid 1 on elsewhere: it was not renewed for 30 s; stop this process",
    ]);
    // Release leaves the file another process took over alone.
    if (lost.kind === "owned") lost.release();
    expect(readLock().instance).toBe("thief");
  });
});

describe("a lock written by the first version ({pid, host})", () => {
  const firstVersion = (change: { pid?: number; host?: string }) =>
    writeFileSync(lockFile(), JSON.stringify({ ...JSON.parse(FIRST_VERSION_LOCK), ...change }));

  it("is taken only from a dead pid on this host", async () => {
    const { logger, warnings } = capturingLogger();
    firstVersion({ host: hostname(), pid: await deadPid() });
    const claim = await claimStoreOwnership(database, { logger });
    expect(claim.kind).toBe("owned");
    expect(warnings()[0]!.msg).toMatch(
      /^took over the store's owner lock from pid \d+ on .*, an earlier version \(its process is no longer running\)$/,
    );
    if (claim.kind === "owned") claim.release();

    firstVersion({ host: hostname(), pid: process.ppid });
    const live = await claimStoreOwnership(database);
    expect(live).toMatchObject({
      kind: "taken",
      message: expect.stringContaining(`pid ${process.ppid} on ${hostname()}, an earlier version`),
    });
  });

  it("from another host is refused, however old: it is never renewed, so nothing tells whether it runs", async () => {
    writeFileSync(lockFile(), FIRST_VERSION_LOCK);
    const yearAgo = new Date(Date.now() - 365 * 24 * 3600_000);
    utimesSync(lockFile(), yearAgo, yearAgo);
    const claim = await claimStoreOwnership(database);
    expect(claim).toEqual({
      kind: "taken",
      message: `a bot process of an earlier version (pid 31337 on bot-7f9c2d, an earlier version) may still use ${database}, and its lock can't be checked from this host; stop that process, or delete ${lockFile()} if no bot runs there`,
    });
    expect(readFileSync(lockFile(), "utf8")).toBe(FIRST_VERSION_LOCK);
  });
});

describe("real processes", () => {
  it("a holder on another host that renews is refused; killed (kill -9), it is taken over once stale, naming it", async () => {
    const other = holder({ LEASE_HOST: "other-host", LEASE_HEARTBEAT_MS: "100", LEASE_STALE_MS: "1000" });
    expect(await other.ask("claim")).toMatchObject({ kind: "owned" });
    const { instance } = readLock();
    const refused = await claimStoreOwnership(database, { timing: FAST });
    expect(refused).toMatchObject({ kind: "taken", message: expect.stringContaining(`instance ${instance}, pid `) });
    expect(refused.kind === "taken" && refused.message).toContain("on other-host");

    other.child.kill("SIGKILL");
    await other.exited;
    const { logger, warnings } = capturingLogger();
    const claim = await claimStoreOwnership(database, { timing: FAST, logger });
    expect(claim.kind).toBe("owned");
    expect(warnings().map((line) => line.msg)).toEqual([
      expect.stringMatching(
        new RegExp(`^took over the store's owner lock from instance ${instance}, pid \\d+ on other-host \\(not renewed for 1 s\\)$`),
      ),
    ]);
    if (claim.kind === "owned") claim.release();
  });

  it("the heartbeat does not keep a process alive", async () => {
    const idle = holder({ LEASE_IDLE: "1", LEASE_HEARTBEAT_MS: "50" });
    expect(await idle.answer()).toMatchObject({ kind: "owned" });
    expect(await idle.exited).toEqual({ code: 0, signal: null });
  });

  it("processes racing for the lock end with exactly one owner, from no lock, a dead holder's and a stale one", async () => {
    const racers = Array.from({ length: 4 }, () => holder({ LEASE_HEARTBEAT_MS: "100" }));
    const starts: Array<() => Promise<void>> = [
      async () => undefined,
      async () => writeFileSync(lockFile(), JSON.stringify({ pid: await deadPid(), host: hostname() })),
      async () => currentLock({ instance: "stale", pid: 1, host: "elsewhere" }, Date.now() - 60_000),
    ];
    for (let round = 0; round < 9; round++) {
      await starts[round % starts.length]!();
      const answers = await Promise.all(racers.map((racer) => racer.ask("claim")));
      expect(
        answers.filter((answer) => answer.kind === "owned"),
        `round ${round}`,
      ).toHaveLength(1);
      const owner = racers[answers.findIndex((answer) => answer.kind === "owned")]!;
      await owner.ask("release");
      expect(existsSync(lockFile())).toBe(false);
    }
  });
});

function namespace(): { pidNamespace?: string } {
  try {
    return { pidNamespace: readlinkSync("/proc/self/ns/pid") };
  } catch {
    return {};
  }
}
