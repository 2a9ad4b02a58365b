// Long runs against a Slack that ends streams after a while and refuses messages that grew too
// large: the trace moves on to a new message in the same thread before either limit, falls back
// to post-and-edit for that run when Slack refuses anyway, and no part of an answer is lost.
import { afterEach, describe, expect, it } from "vitest";
import { call, say, ScriptedModel, type ScriptStep } from "../../support/model-scripted.js";
import type { Model } from "../../../src/contracts/types.js";
import { BOT_USER_ID, MESSAGE_MAX_CHARS, type FakeMessage } from "../../support/fake-slack.js";
import { mentionEvent, postEvent } from "../../support/fake-slack-requests.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const THREAD = "1700007000.000100";
const STEPS = 20;
const ENV = { AGENT_MAX_STEPS: "30" };

/** 20 distinct calculator calls, then an answer; each model call takes a little while, like a real one. */
function longRun(answer: string): Model {
  const steps: ScriptStep[] = Array.from({ length: STEPS }, (_, i) => call("calculator", { expression: `${i + 1}*${i + 1}` }));
  const inner = new ScriptedModel([...steps, say(answer)]);
  return {
    name: inner.name,
    async complete(request, signal) {
      await new Promise((resolve) => setTimeout(resolve, 15));
      return inner.complete(request, signal);
    },
  };
}

const taskIds = (messages: FakeMessage[]) =>
  new Set(messages.flatMap((m) => m.chunks.map((chunk) => (chunk as { id?: string }).id)).filter(Boolean));

describe("Slack long runs", () => {
  it("streams a 20-step trace across several messages in the thread, each within Slack's limits", async () => {
    harness = await startSlackHarness({
      model: longRun("All twenty done."),
      env: ENV,
      streamLimits: { maxAgeMs: 150, maxChars: 1_500, intervalMs: 20 },
    });
    harness.fake.setStreamLimits({ maxAgeMs: 300, maxChars: 2_500 });
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> square twenty numbers`, ts: THREAD }));
    await harness.fake.waitForCall("chat.postMessage", (c) => c.args.text === "All twenty done.");
    const streams = harness.fake.threadMessages("C0GENERAL", THREAD).filter((m) => m.streaming !== undefined);
    expect(streams.length).toBeGreaterThan(1);
    expect(streams.every((m) => m.streaming === "stopped")).toBe(true);
    expect(taskIds(streams).size).toBe(STEPS);
    const refused = harness.fake.calls.filter((c) => c.method.startsWith("chat.") && c.error !== undefined);
    expect(refused).toEqual([]);
  });

  it("switches that run to a trace message when Slack ends the stream anyway, and loses no step", async () => {
    harness = await startSlackHarness({
      model: longRun("Done after the switch."),
      env: ENV,
      streamLimits: { maxAgeMs: 60_000, maxChars: 100_000, intervalMs: 20 },
    });
    harness.fake.setStreamLimits({ maxChars: 2_000 });
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> square twenty numbers`, ts: THREAD }));
    await harness.fake.waitForCall("chat.postMessage", (c) => c.args.text === "Done after the switch.");
    expect(harness.fake.callsTo("chat.appendStream").some((c) => c.error === "msg_too_long")).toBe(true);
    const traceText = harness.fake
      .threadMessages("C0GENERAL", THREAD)
      .filter((m) => m.streaming === undefined && (m.text.startsWith("Steps (") || m.text.startsWith("(trace continued)")))
      .map((m) => m.text)
      .join("\n");
    for (let i = 1; i <= STEPS; i++) expect(traceText).toContain(`${i}*${i}`);
    expect(harness.fake.threadMessages("C0GENERAL", THREAD).every((m) => m.text.length <= MESSAGE_MAX_CHARS)).toBe(true);
  });

  it("posts a 12,000-character answer whole, in parts Slack accepts", async () => {
    const answer = Array.from({ length: 300 }, (_, i) => `Line ${String(i).padStart(3, "0")} of the long answer, kept whole.`).join("\n");
    expect(answer.length).toBeGreaterThan(12_000);
    harness = await startSlackHarness({ model: longRun(answer), env: ENV });
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> write a lot`, ts: THREAD }));
    await harness.fake.waitForCall("chat.postMessage", (c) => String(c.args.text).includes("Line 299"));
    const parts = harness.fake.callsTo("chat.postMessage").filter((c) => String(c.args.text).includes("of the long answer"));
    expect(parts.every((c) => c.error === undefined && c.args.thread_ts === THREAD)).toBe(true);
    expect(parts.map((c) => String(c.args.text)).join("\n")).toBe(answer);
  });
});
