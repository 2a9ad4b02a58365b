// The circuit breaker of one model endpoint, driven by the clock alone: closed → open after N
// failures in a row → half-open after the cool-down, one probe → closed or open again.
import { describe, expect, it } from "vitest";
import {
  abandoned,
  type BreakerState,
  CLOSED,
  failed,
  shownState,
  succeeded,
  taken,
  verdict,
} from "../../../src/agent/models/circuit-breaker.js";

const settings = { failuresToOpen: 3, coolDownMs: 30_000 };

function failTimes(times: number, at = 0, from: BreakerState = CLOSED): BreakerState {
  let state = from;
  for (let index = 0; index < times; index++) state = failed(state, at, settings);
  return state;
}

describe("a closed breaker", () => {
  it("lets every call through and counts failures in a row", () => {
    expect(verdict(CLOSED, 0)).toEqual({ kind: "call" });
    expect(failTimes(2)).toEqual({ kind: "closed", failures: 2 });
    expect(verdict(failTimes(2), 0)).toEqual({ kind: "call" });
  });

  it("forgets the failures when a call succeeds", () => {
    expect(failed(succeeded(), 0, settings)).toEqual({ kind: "closed", failures: 1 });
  });

  it("opens at the Nth failure in a row, for the cool-down", () => {
    expect(failTimes(3, 1_000)).toEqual({ kind: "open", until: 31_000 });
  });

  it("opens at once for as long as the server asked (a 429's retry-after), before the count is reached", () => {
    expect(failed(CLOSED, 1_000, settings, 5_000)).toEqual({ kind: "open", until: 6_000 });
    expect(failed(CLOSED, 1_000, settings, 0)).toEqual({ kind: "closed", failures: 1 });
  });

  it("waits for the longer of the cool-down and the server's wait when it opens by the count", () => {
    expect(failed(failTimes(2), 0, settings, 60_000)).toEqual({ kind: "open", until: 60_000 });
    expect(failed(failTimes(2), 0, settings, 1_000)).toEqual({ kind: "open", until: 30_000 });
  });
});

describe("an open breaker", () => {
  const open = failTimes(3, 0);

  it("refuses every call until the cool-down is over, saying when", () => {
    expect(verdict(open, 29_999)).toEqual({ kind: "refuse", until: 30_000 });
  });

  it("lets one probe through once the cool-down is over, and refuses the rest while it is in flight", () => {
    expect(verdict(open, 30_000)).toEqual({ kind: "probe" });
    const probing = taken(open, 30_000);
    expect(probing).toEqual({ kind: "half_open" });
    expect(verdict(probing, 30_001)).toEqual({ kind: "refuse" });
    expect(verdict(probing, 90_000)).toEqual({ kind: "refuse" });
  });

  it("keeps its time when a call let through earlier fails late, unless the server asks for longer", () => {
    expect(failed(open, 10_000, settings)).toBe(open);
    expect(failed(open, 10_000, settings, 50_000)).toEqual({ kind: "open", until: 60_000 });
  });

  it("reads as half-open once its cool-down is over (its next call probes)", () => {
    expect(shownState(open, 29_999)).toBe("open");
    expect(shownState(open, 30_000)).toBe("half_open");
    expect(shownState(CLOSED, 0)).toBe("closed");
  });
});

describe("the probe of a half-open breaker", () => {
  const probing = taken(failTimes(3, 0), 30_000);

  it("closes the breaker when it succeeds", () => {
    expect(succeeded()).toEqual(CLOSED);
    expect(verdict(succeeded(), 30_001)).toEqual({ kind: "call" });
  });

  it("opens it again for a whole cool-down when it fails", () => {
    expect(failed(probing, 31_000, settings)).toEqual({ kind: "open", until: 61_000 });
  });

  it("leaves it open and due when it ends without a verdict (a Stop), so the next call probes", () => {
    const left = abandoned(probing, 31_000, true);
    expect(left).toEqual({ kind: "open", until: 31_000 });
    expect(verdict(left, 31_000)).toEqual({ kind: "probe" });
  });

  it("is not released by another call that ends without a verdict", () => {
    expect(abandoned(probing, 31_000, false)).toBe(probing);
    expect(abandoned(CLOSED, 31_000, true)).toBe(CLOSED);
  });
});

describe("taking a call", () => {
  it("changes nothing for a closed breaker", () => {
    const state = failTimes(1);
    expect(taken(state, 5)).toBe(state);
  });
});
