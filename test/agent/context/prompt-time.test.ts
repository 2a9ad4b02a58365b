// The run's note states the time to the minute: runs within one minute send the same prompt
// (whose token count is then counted once), and the next minute shows in the next prompt.
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedModel, say } from "../../support/model-scripted.js";
import { startService, type ServiceHarness } from "../../support/service-harness.js";
import { temporaryFolder } from "../../support/temporary-folder.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe("the prompt's time", () => {
  it("is to the minute, the same for every run in that minute", async () => {
    let now = Date.parse("2026-12-01T06:30:12.345Z");
    const model = new ScriptedModel([say("one"), say("two"), say("three")]);
    const folder = await temporaryFolder();
    cleanup.push(() => folder.remove());
    const harness: ServiceHarness = await startService({ model, storeUrl: `sqlite://${folder.path}/bot.sqlite`, clock: () => now });
    cleanup.push(() => harness.close());
    const ask = (conversation: string) =>
      harness.service.ask(
        { origin: { surface: "console", conversationKey: `console:${conversation}`, requester: { id: "alice" }, place: {} }, text: "hi" },
        () => {},
      );
    await ask("a");
    now += 40_000;
    await ask("b");
    now += 20_000;
    await ask("c");
    // The time is in the run's note, right before the question (after what stays the same from run to run).
    const prompts = model.requests.map((request) => String(request.messages.at(-2)?.content));
    expect(prompts[0]).toContain("The current date and time (UTC) is 2026-12-01T06:30:00.000Z.");
    expect(prompts[1]).toBe(prompts[0]);
    expect(prompts[2]).toContain("2026-12-01T06:31:00.000Z");
  });
});
