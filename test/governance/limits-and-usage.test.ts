// A daily token limit and /usage count the same tokens: with the offline demo model (whose server
// reports no usage, so the tokens are counted here) a run's tokens show in /usage, and what
// /settings says is left of the limit is the limit less exactly those tokens.
import { afterEach, describe, expect, it } from "vitest";
import { createDemoModel } from "../../src/agent/models/model-demo.js";
import { startConsole, type ConsoleHarness } from "../support/console-harness.js";
import { settingsOf } from "../support/governance-harness.js";
import { manualClock } from "../support/schedule-harness.js";
import { until } from "../support/until.js";

let term: ConsoleHarness | undefined;
afterEach(async () => {
  await term?.close();
  term = undefined;
});

const tokensIn = (text: string) => Number(text.replace(/,/g, ""));

describe("limits and /usage", () => {
  it("count the same tokens for a model that reports none", async () => {
    const max = 100_000;
    term = await startConsole({
      model: createDemoModel(),
      schedules: { clock: manualClock(Date.now()) },
      settings: settingsOf({ access: { admins: { console: ["console"] } }, limits: { admins: { tokensPerDay: max } } }),
    });
    await term.waitFor("> ");
    term.type("what is 2+2");
    await term.waitFor("2+2 = 4");
    // The answer shows before the run ends; its tokens are counted when its record is written.
    await until(async () => (await term!.records()).length > 0, "the run's record");
    await term.records();
    let from = term.mark();
    term.type("/usage");
    await term.waitFor(/This channel today: [^\n]*\n/, from);
    const usage = /This channel today: ([\d,]+) tokens/.exec(term.text().slice(from));
    expect(usage, term.text().slice(from)).not.toBeNull();
    const used = tokensIn(usage![1]!);
    expect(used).toBeGreaterThan(0);
    from = term.mark();
    term.type("/settings");
    await term.waitFor(/tokens today left[^\n]*\n/, from);
    const left = /you: ([\d,]+) of ([\d,]+) tokens today left/.exec(term.text().slice(from));
    expect(left, term.text().slice(from)).not.toBeNull();
    expect({ left: tokensIn(left![1]!), max: tokensIn(left![2]!) }).toEqual({ left: max - used, max });
  });
});
