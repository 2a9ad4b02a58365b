// Work tracked after an ack, drained with a bound on stop (both chat adapters).
import { describe, expect, it } from "vitest";
import { pino } from "pino";
import { createInFlight } from "../../../src/adapters/core/in-flight.js";
import { within } from "../../../src/runs/within.js";
import { silentLogger } from "../../../src/logger.js";

function deferred() {
  let resolve: () => void = () => {};
  let reject: (error: Error) => void = () => {};
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: "info" }, { write: (chunk: string) => void lines.push(JSON.parse(chunk) as Record<string, unknown>) });
  return { logger, lines };
}

describe("within", () => {
  it("is true when the work settles in time, either way", async () => {
    expect(await within(Promise.resolve("done"), 1_000)).toBe(true);
    expect(await within(Promise.reject(new Error("failed")), 1_000)).toBe(true);
  });

  it("is false when the time runs out first", async () => {
    expect(await within(new Promise(() => {}), 5)).toBe(false);
  });
});

describe("createInFlight", () => {
  it("drains once every tracked piece of work finished, also work tracked while draining", async () => {
    const inFlight = createInFlight(silentLogger);
    const first = deferred();
    const second = deferred();
    inFlight.track("first", first.promise);
    expect(inFlight.size).toBe(1);
    const draining = inFlight.drain(10_000);
    inFlight.track("second", second.promise);
    first.resolve();
    await Promise.resolve();
    second.resolve();
    expect(await draining).toBe(true);
    expect(inFlight.size).toBe(0);
  });

  it("gives up at the bound and says so", async () => {
    const inFlight = createInFlight(silentLogger);
    inFlight.track("stuck", new Promise(() => {}));
    expect(await inFlight.drain(5)).toBe(false);
    expect(inFlight.size).toBe(1);
  });

  it("logs a failure with the name of the work and never rethrows it", async () => {
    const { logger, lines } = capturingLogger();
    const inFlight = createInFlight(logger);
    const work = deferred();
    inFlight.track("a Slack mention", work.promise);
    work.reject(new Error("the store went away"));
    expect(await inFlight.drain(1_000)).toBe(true);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, msg: "a Slack mention failed unexpectedly", err: { message: "the store went away" } });
  });

  it("drains at once when nothing is in flight", async () => {
    expect(await createInFlight(silentLogger).drain(10_000)).toBe(true);
  });
});
