import { describe, expect, it } from "vitest";
import { sharedTimeout } from "../../../src/runs/setup/shared-timeout.js";

describe("shared timeout", () => {
  it("gives operations started within a second one signal, which aborts with a timeout once its time passes", async () => {
    const next = sharedTimeout(50);
    const first = next();
    expect(next()).toBe(first);
    expect(first.aborted).toBe(false);
    await new Promise<void>((resolve) => first.addEventListener("abort", () => resolve(), { once: true }));
    expect((first.reason as Error).name).toBe("TimeoutError");
  });

  it("makes a new signal for operations that start a second or more after the current one was made", () => {
    let now = 0;
    const next = sharedTimeout(30_000, () => now);
    const first = next();
    now = 999;
    expect(next()).toBe(first);
    now = 1_000;
    const second = next();
    expect(second).not.toBe(first);
    expect(next()).toBe(second);
  });

  it("takes a hundred listeners without a listener-leak warning", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const signal = sharedTimeout(10)();
      let heard = 0;
      for (let index = 0; index < 100; index++) signal.addEventListener("abort", () => (heard += 1), { once: true });
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      expect(heard).toBe(100);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => warning.name)).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });
});
