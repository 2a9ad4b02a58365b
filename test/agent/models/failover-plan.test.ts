// The failover's decision before each try: the next endpoint in order that may be asked, else a
// wait that fits the deadline, else giving up.
import { describe, expect, it } from "vitest";
import type { BreakerVerdict } from "../../../src/agent/models/circuit-breaker.js";
import { nextTry, type PlanInput } from "../../../src/agent/models/failover-plan.js";

const CALL: BreakerVerdict = { kind: "call" };

function plan(overrides: Partial<PlanInput> & { verdicts?: Record<string, BreakerVerdict> } = {}) {
  const { verdicts = {}, ...rest } = overrides;
  return nextTry({
    endpoints: ["a", "b", "c"],
    verdictOf: (endpoint) => verdicts[endpoint] ?? CALL,
    failedThisRound: new Set(),
    ruledOut: new Set(),
    triesLeft: 4,
    now: 1_000,
    waitLimit: 100_000,
    backoffMs: 500,
    ...rest,
  });
}

describe("the next try", () => {
  it("is the first endpoint in order", () => {
    expect(plan()).toEqual({ kind: "call", endpoint: "a" });
  });

  it("moves on at once from an endpoint that failed in this round", () => {
    expect(plan({ failedThisRound: new Set(["a"]) })).toEqual({ kind: "call", endpoint: "b" });
  });

  it("skips endpoints whose breaker refuses, and those ruled out for the call", () => {
    expect(plan({ verdicts: { a: { kind: "refuse", until: 9_000 } } })).toEqual({ kind: "call", endpoint: "b" });
    expect(plan({ verdicts: { a: { kind: "refuse" } }, ruledOut: new Set(["b"]) })).toEqual({ kind: "call", endpoint: "c" });
  });

  it("takes a due probe like any call", () => {
    expect(plan({ verdicts: { a: { kind: "probe" } } })).toEqual({ kind: "call", endpoint: "a" });
  });

  it("waits for the backoff when every endpoint failed in this round", () => {
    expect(plan({ failedThisRound: new Set(["a", "b", "c"]) })).toEqual({ kind: "wait", until: 1_500 });
  });

  it("waits for the first breaker to let a probe through (a retry-after, a cool-down) when that fits the deadline", () => {
    const verdicts = { a: { kind: "refuse", until: 20_000 }, b: { kind: "refuse", until: 8_000 }, c: { kind: "refuse" } } as const;
    expect(plan({ verdicts })).toEqual({ kind: "wait", until: 8_000 });
    expect(plan({ verdicts, waitLimit: 7_999 })).toEqual({ kind: "give_up" });
  });

  it("gives up when no endpoint can ever be asked in this call", () => {
    expect(plan({ verdicts: { a: { kind: "refuse" }, b: { kind: "refuse" }, c: { kind: "refuse" } } })).toEqual({ kind: "give_up" });
    expect(plan({ ruledOut: new Set(["a", "b", "c"]) })).toEqual({ kind: "give_up" });
  });

  it("gives up when the tries are spent, whatever else could be asked", () => {
    expect(plan({ triesLeft: 0 })).toEqual({ kind: "give_up" });
  });
});
