// A whole conversation in Slack with a model that streams, through Bolt over HTTP and the real
// service: the person sees the answer being written in the thread before the run ends, and it
// ends as the same text with 👍 / 👎 once; the model's words before a tool call are shown above
// the trace and not repeated; a Stop clicked mid-answer cancels the model at once, keeps what was
// shown and ends it with the stop line.
import { afterEach, describe, expect, it, vi } from "vitest";
import { FEEDBACK_UP_ACTION } from "../../../src/adapters/slack/feedback-buttons.js";
import { STOP_ACTION } from "../../../src/adapters/slack/slack-working.js";
import { BOT_USER_ID, shownText } from "../../support/fake-slack.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";
import { blockActionPayload, mentionEvent, postEvent, postInteraction } from "../../support/fake-slack-requests.js";
import { ScriptedModel, say } from "../../support/model-scripted.js";
import { wordsOf } from "../../support/stream-events.js";
import { streamingModel } from "../../support/streaming-model.js";

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const CHANNEL = "C0GENERAL";
const THREAD = "1700009100.000100";
const ANSWER = "Paris is the capital of France, and it has been for a very long time, through kings, empires and republics alike.";

/** The harness the test runs on, closed after it. */
async function startHarness(options: Parameters<typeof startSlackHarness>[0]): Promise<SlackHarness> {
  harness = await startSlackHarness(options);
  return harness;
}

const thread = (h: SlackHarness) => h.fake.threadMessages(CHANNEL, THREAD);
const feedbackButtons = (h: SlackHarness) =>
  thread(h).filter((message) => JSON.stringify(message.blocks ?? []).includes(FEEDBACK_UP_ACTION));

describe("a streamed answer in a Slack thread", () => {
  it("shows the answer being written before the run ends, and ends it as the same text with 👍 / 👎 once", async () => {
    const model = streamingModel(new ScriptedModel([say(ANSWER)]), { pieceMs: 100 });
    const h = await startHarness({ model });
    await postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> what is the capital of France?`, ts: THREAD }));
    await vi.waitFor(
      () => expect(thread(h).some((message) => message.streaming === "open" && shownText(message).startsWith("Paris"))).toBe(true),
      { timeout: 5_000 },
    );
    expect(thread(h).some((message) => shownText(message).includes("republics alike."))).toBe(false);

    await vi.waitFor(() => expect(feedbackButtons(h)).toHaveLength(1), { timeout: 10_000 });
    const [answer] = feedbackButtons(h);
    expect(shownText(answer!)).toBe(ANSWER);
    expect(answer!.metadata?.event_payload).toMatchObject({ run_id: expect.any(String) });
    expect(h.fake.leftStreaming()).toEqual([]);
    expect(thread(h).filter((message) => shownText(message).includes("Paris is"))).toHaveLength(1);
  });

  it("shows the model's words before a tool call above the trace, and not again in the answer", async () => {
    const script = new ScriptedModel([
      { text: "Let me work that out.", calls: [{ name: "calculator", args: { expression: "6*7" } }] },
      say("It is 42."),
    ]);
    const h = await startHarness({ model: streamingModel(script) });
    await postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> what is 6*7?`, ts: THREAD }));
    await vi.waitFor(() => expect(feedbackButtons(h)).toHaveLength(1), { timeout: 10_000 });
    const messages = thread(h);
    const aside = messages.findIndex((message) => shownText(message) === "Let me work that out.");
    const trace = messages.findIndex((message) => message.chunks.some((chunk) => (chunk as { type?: string }).type === "task_update"));
    const answer = messages.findIndex((message) => shownText(message) === "It is 42.");
    expect(aside).toBeGreaterThanOrEqual(0);
    expect(trace).toBeGreaterThan(aside);
    expect(answer).toBeGreaterThan(trace);
    expect(messages.filter((message) => shownText(message).includes("Let me work that out."))).toHaveLength(1);
    expect(h.fake.leftStreaming()).toEqual([]);
  });

  it("cancels the model at once when Stop is clicked mid-answer, keeping what was shown, with the stop line", async () => {
    const script = new ScriptedModel([say(ANSWER)], { whenExhausted: say("A summary nobody should see.") });
    const model = streamingModel(script, { pieceMs: 150 });
    const h = await startHarness({ model });
    await postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> what is the capital of France?`, ts: THREAD }));
    await vi.waitFor(() => expect(thread(h).some((message) => shownText(message).startsWith("Paris is"))).toBe(true), { timeout: 5_000 });
    const stop = thread(h).find((message) => JSON.stringify(message.blocks ?? []).includes(STOP_ACTION))!;
    const runId = (stop.blocks as Array<{ accessory: { value: string } }>)[0]!.accessory.value;
    const clicked = performance.now();
    await postInteraction(
      h.eventsUrl,
      blockActionPayload({ user: "U0ALICE", actionId: STOP_ACTION, value: runId, channel: CHANNEL, messageTs: stop.ts, threadTs: THREAD }),
    );
    await vi.waitFor(() => expect(feedbackButtons(h)).toHaveLength(1), { timeout: 10_000 });
    // The Stop reached the run as any Stop does (within 2 s), and the model's stream ended there.
    expect(performance.now() - clicked).toBeLessThan(2_000);
    expect(model.pieces).toBeLessThan(wordsOf(ANSWER).length);
    const [answer] = feedbackButtons(h);
    expect(shownText(answer!)).not.toContain("republics alike.");
    expect(ANSWER.startsWith(shownText(answer!))).toBe(true);
    expect(JSON.stringify(answer!.blocks)).toContain("Stopped by u0alice.");
    expect(thread(h).some((message) => shownText(message).includes("A summary nobody should see."))).toBe(false);
    expect(h.fake.leftStreaming()).toEqual([]);
  });
});
