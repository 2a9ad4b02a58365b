// An answer streamed into Slack as the model writes it, through the real WebClient (its
// ChatStreamer) against the fake Slack: the person sees the text before the run ends, the answer
// ends as the same text with 👍 / 👎 once and the run's metadata; the model's words before a tool
// call sit above the trace and are not repeated; a long answer goes on in new messages; Slack
// ending the stream (message_not_in_streaming_state) or a workspace without streaming falls back
// to an edited message, then to one post; a Stop keeps what was shown; and a process taking the
// run over after a crash ends the message the dead one left streaming.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RunView } from "../../../src/adapters/core/run-view.js";
import { FEEDBACK_UP_ACTION } from "../../../src/adapters/slack/feedback-buttons.js";
import type { AgentEvent, GuardStop } from "../../../src/contracts/types.js";
import { shownText, startFakeSlack, type FakeSlack } from "../../support/fake-slack.js";
import { mapStore } from "../../support/map-store.js";
import { slackRunView, VIEW_CHANNEL, VIEW_THREAD } from "../../support/slack-view-kit.js";
import { answered, delta, replied, restart, started, toolRun, wordsOf } from "../../support/stream-events.js";

const runId = "run-slack-1";
const ANSWER = "It is **noon** in Paris, and the sun is out. Nothing else is on your calendar today.";

let fake: FakeSlack;
beforeEach(async () => {
  fake = await startFakeSlack();
});
afterEach(async () => {
  await fake.close();
});

const thread = () => fake.threadMessages(VIEW_CHANNEL, VIEW_THREAD);
const feedbackButtons = () => thread().filter((message) => JSON.stringify(message.blocks ?? []).includes(FEEDBACK_UP_ACTION)).length;
const answerMessages = () => thread().filter((message) => message.metadata?.event_payload.run_id === runId);

/** Feeds the events, letting the view write between them as a model's pace would. */
async function feed(view: RunView, events: readonly AgentEvent[], pauseMs = 5): Promise<void> {
  for (const event of events) {
    view.sink(event);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

const streamOf = (text: string, step = 1) => wordsOf(text).map((word) => delta(runId, step, word));

describe("an answer streamed into Slack", () => {
  it("shows the text as it is written, then ends it as the same text with 👍 / 👎 once and the run's metadata", async () => {
    const { view, display } = slackRunView(fake);
    view.sink(started(runId, 1));
    await feed(view, streamOf(ANSWER).slice(0, 3));
    await vi.waitFor(() => expect(thread().some((message) => shownText(message).startsWith("It is **noon**"))).toBe(true));
    const streaming = thread().find((message) => message.streaming === "open")!;
    expect(fake.callsTo("chat.startStream")[0]!.args).toMatchObject({ thread_ts: VIEW_THREAD, recipient_user_id: "U0ALICE" });

    await feed(view, streamOf(ANSWER).slice(3));
    const posted = await view.finish(answered(runId, ANSWER));
    const posts = fake.callsTo("chat.postMessage").map((call) => JSON.stringify(call.args));
    const message = fake.message(VIEW_CHANNEL, streaming.ts)!;
    expect(shownText(message)).toBe(ANSWER);
    expect(message.streaming).toBe("stopped");
    expect(posted).toEqual({ messageId: streaming.ts });
    expect(answerMessages().map((answer) => answer.ts)).toEqual([streaming.ts]);
    expect(feedbackButtons()).toBe(1);
    expect(posts.filter((post) => post.includes("noon") || post.includes(FEEDBACK_UP_ACTION))).toEqual([]);
    expect(await display.findAnswer!(runId)).toEqual({ messageId: streaming.ts });
    expect(fake.leftStreaming()).toEqual([]);
  });

  it("shows the model's words before a tool call above the trace, and leaves them out of the answer", async () => {
    const { view } = slackRunView(fake);
    const call = { id: "call_time", name: "current_time", arguments: '{"zone":"Europe/Paris"}' };
    view.sink(started(runId, 1));
    await feed(view, [...streamOf("Let me look at the clock."), replied(runId, 1, "Let me look at the clock.", [call])]);
    await feed(view, [...toolRun(runId, 1, call, "12:00"), started(runId, 2), ...streamOf("It is noon.", 2)]);
    await view.finish(answered(runId, "It is noon."));

    const texts = thread().map((message) => ({ text: shownText(message), trace: message.chunks.some(isTask) }));
    const aside = texts.findIndex((message) => message.text === "Let me look at the clock.");
    const trace = texts.findIndex((message) => message.trace);
    const answer = texts.findIndex((message) => message.text === "It is noon.");
    expect([aside >= 0, trace > aside, answer > trace]).toEqual([true, true, true]);
    expect(thread().filter((message) => shownText(message).includes("Let me look"))).toHaveLength(1);
    expect(answerMessages().map(shownText)).toEqual(["It is noon."]);
    expect(fake.leftStreaming()).toEqual([]);
  });

  it("goes on in a new streamed message when the answer outgrows one, code blocks closed and reopened", async () => {
    fake.setStreamLimits({ maxChars: 1_600 });
    const { view } = slackRunView(fake, { limits: { maxAgeMs: 60_000, maxChars: 1_500, intervalMs: 20 } });
    const code = ["```python", ...Array.from({ length: 30 }, (_, index) => `print("line ${index} of the program")`), "```"].join("\n");
    const long = `Here is the program:\n\n${code}\n\n${"It prints thirty lines. ".repeat(90).trim()}`;
    view.sink(started(runId, 1));
    await feed(view, streamOf(long), 1);
    await view.finish(answered(runId, long));

    const streamed = thread().filter((message) => message.streaming !== undefined);
    expect(streamed.length).toBeGreaterThan(2);
    for (const message of streamed) expect((shownText(message).match(/```/g) ?? []).length % 2).toBe(0);
    const words = (text: string) =>
      text
        .replace(/```(python)?/g, "")
        .split(/\s+/)
        .filter(Boolean);
    expect(words(streamed.map(shownText).join("\n"))).toEqual(words(long));
    expect(answerMessages()).toEqual([streamed.at(-1)]);
    expect(feedbackButtons()).toBe(1);
    expect(fake.calls.filter((call) => call.error !== undefined)).toEqual([]);
  });

  it("takes over the message as an edited one when Slack ends the stream (message_not_in_streaming_state)", async () => {
    fake.setStreamLimits({ idleMs: 150 });
    const { view } = slackRunView(fake);
    view.sink(started(runId, 1));
    await feed(view, streamOf("It is noon in Paris,"));
    await vi.waitFor(() => expect(fake.callsTo("chat.startStream")).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 250));
    await feed(view, streamOf(" and the sun is out."));
    await view.finish(answered(runId, "It is noon in Paris, and the sun is out."));

    expect(fake.calls.some((call) => call.error === "message_not_in_streaming_state")).toBe(true);
    const [answer] = answerMessages();
    expect(shownText(answer!)).toBe("It is noon in Paris, and the sun is out.");
    expect(answer!.streaming).toBe("stopped");
    expect(fake.callsTo("chat.update").length).toBeGreaterThan(0);
    expect(feedbackButtons()).toBe(1);
    expect(fake.leftStreaming()).toEqual([]);
  });

  it("ends an answer as an edited message, 👍 / 👎 below it, when Slack refuses to stop its stream", async () => {
    fake.fail("chat.stopStream", { error: "message_not_in_streaming_state" });
    const { view, display } = slackRunView(fake);
    view.sink(started(runId, 1));
    await feed(view, streamOf("It is noon in Paris."));
    await view.finish(answered(runId, "It is noon in Paris."));
    const [answer] = answerMessages();
    expect(shownText(answer!)).toBe("It is noon in Paris.");
    expect(await display.findAnswer!(runId)).toEqual({ messageId: answer!.ts });
    expect(feedbackButtons()).toBe(1);
    expect(fake.leftStreaming()).toEqual([]);
  });

  it("replaces what a failed try streamed with the next try's text", async () => {
    const { view } = slackRunView(fake);
    view.sink(started(runId, 1));
    await feed(view, streamOf("It is midnight in"));
    await vi.waitFor(() => expect(thread().some((message) => shownText(message).startsWith("It is midnight"))).toBe(true));
    view.sink(restart(runId, 1));
    await feed(view, streamOf("It is noon in Paris."));
    await view.finish(answered(runId, "It is noon in Paris."));
    expect(answerMessages().map(shownText)).toEqual(["It is noon in Paris."]);
    expect(thread().some((message) => shownText(message).includes("midnight"))).toBe(false);
    expect(feedbackButtons()).toBe(1);
    expect(fake.leftStreaming()).toEqual([]);
  });

  it("posts the text and edits it where the workspace does not stream, then posts it whole when edits fail too", async () => {
    fake.refuseStreaming();
    const first = slackRunView(fake);
    first.view.sink(started(runId, 1));
    await feed(first.view, streamOf(ANSWER));
    await first.view.finish(answered(runId, ANSWER));
    // Edited messages are mrkdwn, as posted answers are.
    const asMrkdwn = ANSWER.replace("**noon**", "*noon*");
    expect(answerMessages().map(shownText)).toEqual([asMrkdwn]);
    expect(fake.callsTo("chat.postMessage")[0]!.args.text).not.toBe(asMrkdwn);
    expect(fake.callsTo("chat.update").length).toBeGreaterThan(0);
    expect(feedbackButtons()).toBe(1);

    const second = await startFakeSlack();
    try {
      second.refuseStreaming();
      second.fail("chat.update", { error: "edit_window_closed", times: 100 });
      const { view } = slackRunView(second);
      view.sink(started(runId, 1));
      await feed(view, streamOf(ANSWER));
      await view.finish(answered(runId, ANSWER));
      const shown = second.threadMessages(VIEW_CHANNEL, VIEW_THREAD).filter((message) => !message.blocks);
      expect(shown.map(shownText)).toEqual([asMrkdwn]);
    } finally {
      await second.close();
    }
  });

  it("keeps what was shown when a Stop cuts the answer, and ends it with the stop line", async () => {
    const { view } = slackRunView(fake);
    view.sink(started(runId, 1));
    await feed(view, streamOf("The three largest files are a.txt, b.txt"));
    const stop: GuardStop = { guard: "stopped", detail: "stop", sentence: "Stopped by alice." };
    await view.finish(answered(runId, "Summary: I was looking at the files.", stop));
    const [answer] = answerMessages();
    expect(shownText(answer!)).toBe("The three largest files are a.txt, b.txt");
    expect(JSON.stringify(answer!.blocks)).toContain("Stopped by alice.");
    expect(thread().some((message) => shownText(message).includes("Summary"))).toBe(false);
    expect(feedbackButtons()).toBe(1);
  });

  it("stops and marks the message a dead process left streaming, and answers once below it", async () => {
    const store = mapStore();
    const dead = slackRunView(fake, { store });
    dead.view.sink(started(runId, 1));
    await feed(dead.view, streamOf("It is no"));
    await vi.waitFor(() => expect(store.data.size).toBe(1));
    // The dead process wrote all it had: nothing of it is waiting to be written.
    await vi.waitFor(() => expect(fake.leftStreaming().map(shownText)).toEqual(["It is no"]));
    const [half] = fake.leftStreaming();

    const taken = slackRunView(fake, { store });
    taken.view.sink(started(runId, 1));
    await feed(taken.view, streamOf("It is noon."));
    await taken.view.finish(answered(runId, "It is noon."));

    expect(shownText(fake.message(VIEW_CHANNEL, half!.ts)!)).toBe("It is no\n\n_(interrupted, answered again below)_");
    expect(answerMessages().map(shownText)).toEqual(["It is noon."]);
    expect(Number(answerMessages()[0]!.ts)).toBeGreaterThan(Number(half!.ts));
    expect(fake.leftStreaming()).toEqual([]);
    expect(store.data.size).toBe(0);
  });
});

function isTask(chunk: unknown): boolean {
  return (chunk as { type?: string }).type === "task_update";
}
