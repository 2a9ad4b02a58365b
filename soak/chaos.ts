// The faults, on a schedule drawn from the seed: kill -9 of a bot process (started again a
// second later), SIGTERM of another (started again once it has stopped), a Redis restart
// (SHUTDOWN, down for a second), a Slack API that answers 429 (Retry-After: 1) or 500 to every
// call for a few seconds, and bursts of junk requests. Each kind comes at least once in any
// run, none in the first and last seconds, so the soak starts and ends on a working system.
import type { FakeSlack } from "../test/support/fake-slack.js";
import type { Fleet } from "./fleet.js";
import { sendJunkBurst, type JunkCounts } from "./junk.js";
import { FAULT_KINDS, type FaultKind } from "./options.js";
import { randomStream, type Random } from "./random.js";
import type { RedisHost } from "./redis-host.js";

export interface Fault {
  /** Milliseconds after the traffic started. */
  readonly atMs: number;
  readonly kind: FaultKind;
  /** For outages: how long; for junk: how many requests. */
  readonly size: number;
  /** Picks the process (an index into the live ones). */
  readonly draw: number;
}

const PER_MINUTE: Record<FaultKind, number> = { kill: 1, term: 0.7, redis: 0.4, slack429: 0.5, slack500: 0.5, junk: 1.5 };
const QUIET_EDGE_MS = 8_000;

function sizeOf(kind: FaultKind, random: Random): number {
  if (kind === "slack429") return random.int(2_000, 5_000);
  if (kind === "slack500") return random.int(1_000, 3_000);
  if (kind === "junk") return random.int(10, 30);
  return 0;
}

/** Pure: the faults of a run of `durationMs`, in time order. */
export function faultSchedule(seed: number, durationMs: number, skip: ReadonlySet<FaultKind>): Fault[] {
  const random = randomStream(seed, "faults");
  const span = Math.max(1, durationMs - 2 * QUIET_EDGE_MS);
  const faults: Fault[] = [];
  for (const kind of FAULT_KINDS) {
    const count = Math.max(1, Math.round((PER_MINUTE[kind] * durationMs) / 60_000));
    for (let i = 0; i < count; i++) {
      const fault = {
        atMs: QUIET_EDGE_MS + Math.floor(random.next() * span),
        kind,
        size: sizeOf(kind, random),
        draw: random.int(0, 1_000_000),
      };
      if (!skip.has(kind)) faults.push(fault);
    }
  }
  return faults.sort((a, b) => a.atMs - b.atMs);
}

export interface FaultCounts {
  kill: number;
  term: number;
  redis: number;
  slack429: number;
  slack500: number;
  junkBursts: number;
  /** Faults that found no process up to hit. */
  skipped: number;
}

export interface ChaosDeps {
  readonly slack: FakeSlack;
  readonly fleet: Fleet;
  readonly redis: RedisHost;
  readonly log: (line: string) => void;
}

/** Runs the schedule from `startedAt` (performance.now()); resolves when the last fault is done. */
export async function runChaos(
  schedule: readonly Fault[],
  startedAt: number,
  deps: ChaosDeps,
): Promise<{ faults: FaultCounts; junk: JunkCounts }> {
  const faults: FaultCounts = { kill: 0, term: 0, redis: 0, slack429: 0, slack500: 0, junkBursts: 0, skipped: 0 };
  const junk: JunkCounts = { requests: 0, byStatus: {}, byKind: {} };
  const pending: Promise<unknown>[] = [];
  for (const fault of schedule) {
    const wait = startedAt + fault.atMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const live = deps.fleet.live();
    const target = live[fault.draw % Math.max(1, live.length)];
    const at = `${(fault.atMs / 1000).toFixed(1)} s`;
    switch (fault.kind) {
      case "kill":
      case "term": {
        const done = target && (fault.kind === "kill" ? deps.fleet.kill(target) : deps.fleet.terminate(target));
        if (!done) faults.skipped += 1;
        else {
          faults[fault.kind] += 1;
          deps.log(`${at}: ${fault.kind === "kill" ? "kill -9" : "SIGTERM"} bot ${target.index}`);
        }
        break;
      }
      case "redis":
        faults.redis += 1;
        deps.log(`${at}: Redis restart`);
        pending.push(deps.redis.restart().catch((error: unknown) => deps.log(`Redis did not come back: ${String(error)}`)));
        break;
      case "slack429":
      case "slack500":
        faults[fault.kind] += 1;
        deps.log(`${at}: Slack answers ${fault.kind === "slack429" ? "429" : "500"} for ${fault.size} ms`);
        deps.slack.failEverything(fault.kind === "slack429" ? { status: 429, retryAfterSeconds: 1 } : { status: 500 }, fault.size);
        break;
      case "junk":
        if (!target) faults.skipped += 1;
        else {
          faults.junkBursts += 1;
          deps.log(`${at}: ${fault.size} junk requests to bot ${target.index}`);
          pending.push(sendJunkBurst(target.url, fault.size, fault.draw, junk));
        }
        break;
    }
  }
  await Promise.all(pending);
  return { faults, junk };
}
