// Ctrl-C in the console during a run stops the run, not the session: the next question works. A
// second Ctrl-C, or one at the prompt, still leaves. That the run ends at once with "Stopped by
// <name>." is the surfaces' contract (test/adapters/surface-contract-stop.test.ts).
import { afterEach, describe, expect, it } from "vitest";
import type { Model } from "../../../src/contracts/types.js";
import { startConsole, type ConsoleHarness } from "../../support/console-harness.js";

let harness: ConsoleHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The first call hangs until its signal aborts; later calls answer at once. */
function firstCallHangs(): Model {
  let calls = 0;
  return {
    name: "gpt-4o-mini",
    complete: (_request, signal) => {
      calls += 1;
      if (calls > 1) return Promise.resolve({ content: `answer ${calls}`, toolCalls: [] });
      return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
    },
  };
}

describe("console Ctrl-C", () => {
  it("stops the run in progress, and the session goes on", async () => {
    harness = await startConsole({ model: firstCallHangs(), terminal: true });
    harness.type("think forever");
    const started = await harness.waitFor(/thinking|step 1/i);
    harness.press("\x03");
    await harness.waitFor("Stopped by ada.", started);
    const after = harness.mark();
    harness.type("and now?");
    await harness.waitFor(/answer \d/, after);
    expect(harness.text()).not.toContain("Bye.");
  });

  it("leaves on Ctrl-C at the prompt", async () => {
    harness = await startConsole({ model: firstCallHangs(), terminal: true });
    await harness.waitFor("> ");
    harness.press("\x03");
    await harness.adapter.closed;
    expect(harness.text()).toContain("Bye.");
  });
});
