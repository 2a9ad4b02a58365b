// Long runs on Discord against a fake that refuses messages over 2,000 characters: a 20-step run
// keeps its trace within Discord's limits (split across messages in the trace thread, first and
// last steps kept), and a 12,000-character
// answer arrives whole, in parts Discord accepts, with the feedback buttons on the last part.
import { afterEach, describe, expect, it } from "vitest";
import { call, say, type ScriptStep } from "../../support/model-scripted.js";
import { MESSAGE_MAX_CHARS } from "../../support/fake-discord.js";
import { originalPath, startDiscordHarness, webhookPath, type DiscordHarness } from "../../support/discord-harness.js";

let harness: DiscordHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const STEPS = 20;
const twentySteps: ScriptStep[] = Array.from({ length: STEPS }, (_, i) => call("calculator", { expression: `${i + 1}*${i + 1}` }));

describe("Discord long runs", () => {
  it("keeps the trace of a 20-step run and an answer of 12,000 characters whole", async () => {
    const answer = Array.from({ length: 300 }, (_, i) => `Line ${String(i).padStart(3, "0")} of the long answer, kept whole.`).join("\n");
    expect(answer.length).toBeGreaterThan(12_000);
    harness = await startDiscordHarness({ script: [...twentySteps, say(answer)], env: { AGENT_MAX_STEPS: "30" } });
    const { fake, alice } = harness;
    const { token } = fake.slashCommand("ask", alice, { values: { question: "square twenty numbers and write a lot" } });
    await fake.waitForCall(["POST", "PATCH"], /^\/webhooks\//, (request) => String(request.body?.content ?? "").includes("Line 299"));
    const refused = fake.calls.filter((request) => request.status === 400);
    expect(refused).toEqual([]);

    const parts = [...fake.callsTo("PATCH", originalPath(fake, token)), ...fake.callsTo("POST", webhookPath(fake, token))]
      .map((request) => request.body)
      .filter((body) => String(body?.content ?? "").includes("of the long answer"));
    for (const part of parts) expect(String(part.content).length).toBeLessThanOrEqual(MESSAGE_MAX_CHARS);
    expect(parts.map((part) => String(part.content)).join("\n")).toBe(answer);
    expect(JSON.stringify(parts.at(-1)?.components)).toContain('"fb:u:');

    await fake.waitForCall("POST", /^\/channels\/\d+\/messages$/, (request) => String(request.body.content).includes(`${STEPS}*${STEPS}`));
    const trace = fake
      .callsTo("POST", /^\/channels\/\d+\/messages$/)
      .map((request) => String(request.body.content))
      .filter((content) => content.includes("calculator"));
    for (const part of trace) expect(part.length).toBeLessThanOrEqual(MESSAGE_MAX_CHARS);
    expect(trace.join("\n")).toContain("1*1");
  });
});
