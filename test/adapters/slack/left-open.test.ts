// What a process taking a run over does with the threads where the one that died may have been
// starting a stream (its id never recorded): only a stream still open after the thread's last
// answer is stopped, with a note; finished messages, answers and other threads stay as they are;
// a listing Slack refuses or sends damaged is logged or passed over, never thrown. And a record
// written before stream threads were recorded (test/fixtures/, by ee223ec's code) still ends its
// streams.
import { webApi } from "@slack/bolt";
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { INTERRUPTED_ANSWER } from "../../../src/adapters/core/texts.js";
import { endUnrecordedStreams, unansweredBotMessages } from "../../../src/adapters/slack/left-open.js";
import { answerMetadata } from "../../../src/adapters/slack/posted-answer.js";
import { capturingLogger } from "../../support/capturing-logger.js";
import { shownText, startFakeSlack, type FakeSlack } from "../../support/fake-slack.js";
import { TEAM_ID } from "../../support/fake-slack-types.js";
import { mapStore } from "../../support/map-store.js";
import { fixturePath } from "../../support/repo-paths.js";
import { slackRunView, VIEW_CHANNEL, VIEW_THREAD } from "../../support/slack-view-kit.js";

const CHANNEL = "C0GENERAL";
const THREAD = "1700007100.000100";
const OTHER_THREAD = "1700007200.000100";
const NOTE = "_(interrupted)_";

let fake: FakeSlack;
let client: webApi.WebClient;
beforeEach(async () => {
  fake = await startFakeSlack();
  client = new webApi.WebClient("xoxb-test", { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
});
afterEach(() => fake.close());

const inThread = (thread: string) => ({ channel: CHANNEL, thread_ts: thread, recipient_team_id: TEAM_ID, recipient_user_id: "U0ALICE" });
const startStream = async (thread: string, text: string) =>
  String((await client.chat.startStream({ ...inThread(thread), markdown_text: text })).ts);

describe("streams a process that died started without recording them", () => {
  it("only a stream still open after the thread's last answer is stopped, with the note", async () => {
    const answer = await startStream(THREAD, "An earlier answer.");
    await client.chat.stopStream({ channel: CHANNEL, ts: answer, metadata: answerMetadata("run-1") });
    const stop = String((await client.chat.postMessage({ channel: CHANNEL, thread_ts: THREAD, text: "Stop" })).ts);
    const finished = await startStream(THREAD, "Words before a tool call.");
    await client.chat.stopStream({ channel: CHANNEL, ts: finished });
    const orphan = await startStream(THREAD, "Half of the");
    const recorded = await startStream(THREAD, "A stream the record names");
    const elsewhere = await startStream(OTHER_THREAD, "Another thread's stream");

    const { logger } = capturingLogger();
    await endUnrecordedStreams(client, logger, [{ channel: CHANNEL, thread: THREAD }], new Set([recorded]), NOTE);

    expect(fake.leftStreaming().map((message) => message.ts)).toEqual([recorded, elsewhere]);
    expect(shownText(fake.message(CHANNEL, orphan)!)).toBe(`Half of the\n\n${NOTE}`);
    expect(shownText(fake.message(CHANNEL, answer)!)).toBe("An earlier answer.");
    expect(shownText(fake.message(CHANNEL, finished)!)).toBe("Words before a tool call.");
    expect(shownText(fake.message(CHANNEL, stop)!)).toBe("Stop");
  });

  it("a thread Slack can't list is logged, and nothing is thrown", async () => {
    const orphan = await startStream(THREAD, "Half of the");
    fake.fail("conversations.replies", { error: "internal_error" });
    const { logger, lines } = capturingLogger();
    await endUnrecordedStreams(client, logger, [{ channel: CHANNEL, thread: THREAD }], new Set(), NOTE);
    expect(lines.map((line) => line.msg)).toContain("could not look for a stream left open in its thread; one may look unfinished");
    expect(fake.leftStreaming().map((message) => message.ts)).toEqual([orphan]);
  });

  it("passes over listed entries that are not messages", () => {
    const listing = [null, "text", { ts: 7 }, { ts: "1.1", bot_id: "B1" }, { ts: "1.2", user: "U0ALICE" }, { ts: "1.3", bot_id: "B1" }];
    expect(unansweredBotMessages(listing, new Set(["1.3"]))).toEqual(["1.1"]);
  });
});

describe("a record of open messages an earlier version wrote", () => {
  it("still ends its streams when the run is taken over, and gives way to today's record", async () => {
    const fixture = JSON.parse(readFileSync(fixturePath("slack-unfinished-before-stream-threads.json"), "utf8")) as {
      readonly values: Record<string, unknown>;
    };
    const store = mapStore();
    for (const [key, value] of Object.entries(fixture.values)) await store.set(key, value);
    const [key, left] = Object.entries(fixture.values)[0]! as [string, Array<{ id: string }>];
    const runId = key.replace("slack:unfinished:", "");
    // The streams the dead process held open, where the record says they are.
    const text = await startStream(VIEW_THREAD, "Half of the");
    const trace = String(
      (
        await client.chat.startStream({
          ...inThread(VIEW_THREAD),
          chunks: [{ type: "task_update", id: "c1", title: "lookup", status: "in_progress" }],
        })
      ).ts,
    );
    expect([text, trace]).toEqual(left.map((message) => message.id));

    const { view } = slackRunView(fake, { store });
    view.sink({ type: "step_started", runId, step: 1 });
    await expect.poll(() => fake.leftStreaming()).toEqual([]);
    expect(shownText(fake.message(VIEW_CHANNEL, text)!)).toBe(`Half of the\n\n_${INTERRUPTED_ANSWER}_`);
    await expect.poll(() => store.data.get(key)).toEqual([{ channel: VIEW_CHANNEL, thread: VIEW_THREAD }]);
  });
});
