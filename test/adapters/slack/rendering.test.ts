// What a run looks like in Slack, end to end: guard summaries, the fallback trace when
// streaming is refused, rate limits, failed posts, long and mention-laden answers.
import { afterEach, describe, expect, it } from "vitest";
import { call, ScriptedModel, say, type ScriptStep } from "../../support/model-scripted.js";
import { MESSAGE_MAX_CHARS } from "../../../src/adapters/slack/slack-text.js";
import { silentLogger } from "../../../src/logger.js";
import { createLongTermMemory } from "../../../src/memory/long-term-memory.js";
import { BOT_USER_ID, shownText } from "../../support/fake-slack.js";
import { mentionEvent, postEvent } from "../../support/fake-slack-requests.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";
import { until } from "../../support/until.js";
import { personBlock } from "../../support/data-block-matchers.js";

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const THREAD = "1700002000.000100";
const ask = (h: SlackHarness, text = "go") => postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> ${text}`, ts: THREAD }));

/** Calls the calculator with the same arguments forever; writes a summary when offered no tools. */
const runaway: ScriptStep = (request) =>
  request.tools.length === 0
    ? { text: "Summary: I kept computing 1+1 and found 2; nothing else is missing." }
    : call("calculator", { expression: "1+1" });

describe("Slack rendering", () => {
  it("posts the summary and a line naming the guard when a runaway model is stopped", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([], { whenExhausted: runaway }) });
    await ask(harness);
    const summary = await harness.fake.waitForCall("chat.postMessage", (c) => String(c.args.text).startsWith("Summary:"));
    expect(summary.args.thread_ts).toBe(THREAD);
    const guardLine = await harness.fake.waitForCall(
      "chat.postMessage",
      (c) => Array.isArray(c.args.blocks) && JSON.stringify(c.args.blocks).includes("context"),
    );
    expect(guardLine.args.thread_ts).toBe(THREAD);
    expect(String(guardLine.args.text)).toMatch(/^Stopped/);
    expect(harness.fake.calls.indexOf(guardLine)).toBeGreaterThan(harness.fake.calls.indexOf(summary));
  });

  it("falls back to one trace message, edited and rate limited, when streaming is refused", async () => {
    harness = await startSlackHarness({
      model: new ScriptedModel([
        call("calculator", { expression: "2+2" }),
        call("calculator", { expression: "3+3" }),
        say("Four and six."),
      ]),
    });
    harness.fake.refuseStreaming();
    harness.fake.fail("chat.update", { status: 429, retryAfterSeconds: 1 });
    await ask(harness);
    await harness.fake.waitForShown((text) => text === "Four and six.");

    const trace = harness.fake.callsTo("chat.postMessage").find((c) => String(c.args.text).startsWith("Working on it"))!;
    expect(trace.args.thread_ts).toBe(THREAD);
    // The trace's edits go their own pace (the answer does not wait for a rate-limited one): wait for the last step in it.
    const edited = () =>
      harness!.fake.threadMessages("C0GENERAL", THREAD).find((m) => m.text.includes("Steps (") && m.text.includes("3+3"));
    await until(() => edited() !== undefined, "the trace edited up to the last step", 8_000);
    expect(edited()!.text).toContain("calculator");
    const updates = harness.fake.callsTo("chat.update");
    expect(updates[0]?.status).toBe(429);
    expect(updates.at(-1)?.status).toBe(200);
    expect(harness.fake.callsTo("chat.startStream")).toHaveLength(1);
  });

  it("falls back for that run only when streaming fails in passing", async () => {
    harness = await startSlackHarness({
      model: new ScriptedModel([call("calculator", { expression: "1" }), say("one"), call("calculator", { expression: "2" }), say("two")]),
    });
    harness.fake.fail("chat.startStream", { error: "internal_error" });
    await ask(harness);
    await harness.fake.waitForShown((text) => text === "one");
    await until(() => harness!.fake.threadMessages("C0GENERAL", THREAD).some((m) => m.text.includes("Steps (")), "the trace message");

    const second = "1700002001.000100";
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> again`, ts: second }));
    await harness.fake.waitForShown((text) => text === "two");
    // The first run tried once and fell back; the second streams.
    const starts = harness.fake.callsTo("chat.startStream");
    expect(starts.filter((c) => c.args.thread_ts === THREAD).map((c) => c.error)).toEqual(["internal_error"]);
    expect(starts.filter((c) => c.args.thread_ts === second).map((c) => c.error)).not.toHaveLength(0);
    expect(starts.filter((c) => c.args.thread_ts === second).every((c) => c.error === undefined)).toBe(true);
    expect(harness.fake.threadMessages("C0GENERAL", second).some((m) => m.streaming === "stopped")).toBe(true);
    expect(harness.fake.threadMessages("C0GENERAL", second).some((m) => m.text.includes("Steps ("))).toBe(false);
  });

  it.each(["not_allowed", "missing_scope", "team_not_enabled"])(
    "falls back for that run only when Slack refuses a stream with %s",
    async (code) => {
      harness = await startSlackHarness({
        model: new ScriptedModel([
          call("calculator", { expression: "1" }),
          say("one"),
          call("calculator", { expression: "2" }),
          say("two"),
        ]),
      });
      harness.fake.fail("chat.startStream", { error: code });
      await ask(harness);
      await harness.fake.waitForShown((text) => text === "one");
      await until(() => harness!.fake.threadMessages("C0GENERAL", THREAD).some((m) => m.text.includes("Steps (")), "the trace message");
      const second = "1700002001.000100";
      await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> again`, ts: second }));
      await harness.fake.waitForShown((text) => text === "two");
      // The first run tried once and fell back; the second streams.
      const starts = harness.fake.callsTo("chat.startStream");
      expect(starts.filter((c) => c.args.thread_ts === THREAD).map((c) => c.error)).toEqual([code]);
      expect(starts.filter((c) => c.args.thread_ts === second).map((c) => c.error)).not.toHaveLength(0);
      expect(starts.filter((c) => c.args.thread_ts === second).every((c) => c.error === undefined)).toBe(true);
      expect(harness.fake.threadMessages("C0GENERAL", second).some((m) => m.streaming === "stopped")).toBe(true);
    },
  );

  it("retries a failed post of the answer where Slack does not stream", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([say("The answer survives.")]) });
    harness.fake.refuseStreaming();
    harness.fake.fail("chat.postMessage", { error: "internal_error", times: 2 });
    await ask(harness);
    await harness.fake.waitForShown((text) => text === "The answer survives.");
    expect(harness.fake.callsTo("chat.postMessage").filter((c) => c.error === "internal_error")).toHaveLength(2);
  });

  it("logs the whole answer when it cannot be posted", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([say("An answer nobody must lose.")]) });
    harness.fake.refuseStreaming();
    harness.fake.fail("chat.postMessage", { error: "internal_error", times: 50 });
    await ask(harness);
    const logged = () => harness!.logs.find((entry) => entry.answer === "An answer nobody must lose.");
    await until(() => logged() !== undefined, "the answer in the log");
    expect(logged()?.msg).toContain("could not post the answer");
  });

  it("neutralises crowd mentions and converts Markdown in a posted answer", async () => {
    harness = await startSlackHarness({
      model: new ScriptedModel([say("<!channel> **Done**: see [the doc](https://example.test/doc) <!subteam^S1|@devs>")]),
    });
    harness.fake.refuseStreaming();
    await ask(harness);
    const answer = await harness.fake.waitForShown((text) => text.includes("Done"));
    expect(shownText(answer)).toBe("@\u2060channel *Done*: see <https://example.test/doc|the doc> @devs");
  });

  it("neutralises crowd mentions in a streamed answer, whose Markdown Slack renders itself", async () => {
    harness = await startSlackHarness({
      model: new ScriptedModel([say("<!channel> **Done**: see [the doc](https://example.test/doc) <!subteam^S1|@devs>")]),
    });
    await ask(harness);
    const answer = await harness.fake.waitForShown((text) => text.includes("Done"));
    expect(answer.streaming).toBe("stopped");
    expect(shownText(answer)).toBe("@\u2060channel **Done**: see [the doc](https://example.test/doc) @devs");
  });

  it("splits a long posted answer below Slack's limit", async () => {
    const long = Array.from({ length: 900 }, (_, i) => `Line ${i} of a very long answer.`).join("\n");
    harness = await startSlackHarness({ model: new ScriptedModel([say(long)]) });
    harness.fake.refuseStreaming();
    await ask(harness);
    await harness.fake.waitForShown((text) => text.includes("Line 899"));
    const parts = harness.fake
      .shown()
      .map(shownText)
      .filter((text) => text.includes("of a very long answer"));
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(MESSAGE_MAX_CHARS);
    expect(parts.join("\n")).toBe(long);
  });

  it("gives the model the thread's earlier messages when mentioned inside a thread", async () => {
    const model = new ScriptedModel([say("Noted.")]);
    harness = await startSlackHarness({ model });
    harness.fake.addMessage({ channel: "C0GENERAL", ts: "1700003000.000100", user: "U0BOB", text: "The deploy failed at step 3" });
    harness.fake.addMessage({
      channel: "C0GENERAL",
      ts: "1700003001.000100",
      thread_ts: "1700003000.000100",
      user: "U0CAROL",
      text: "Logs say disk full",
    });
    harness.fake.addMessage({
      channel: "C0GENERAL",
      ts: "1700003002.000100",
      thread_ts: "1700003000.000100",
      user: BOT_USER_ID,
      bot_id: "B0BOT",
      text: "old bot reply",
    });
    await postEvent(
      harness.eventsUrl,
      mentionEvent({ text: `<@${BOT_USER_ID}> what went wrong?`, ts: "1700003003.000100", thread_ts: "1700003000.000100" }),
    );
    await harness.fake.waitForShown((text) => text === "Noted.");
    const sent = JSON.stringify(model.requests[0]?.messages);
    const contents = model.requests[0]!.messages.map((message) => message.content);
    expect(contents).toContainEqual(personBlock("U0BOB", "C0GENERAL", "The deploy failed at step 3"));
    expect(contents).toContainEqual(personBlock("U0CAROL", "C0GENERAL", "Logs say disk full"));
    expect(sent).not.toContain("old bot reply");
    expect(harness.fake.shown((text) => text === "Noted.")[0]?.thread_ts).toBe("1700003000.000100");
  });

  it("lists remembered facts with mentions neutralised, then forgets them", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([]) });
    const memory = createLongTermMemory(harness.store, { maxFacts: 10, logger: silentLogger });
    await memory.remember(`slack:T0TEAM:C0GENERAL:${THREAD}`, ["The deploy window is Friday 3pm", "Ping <!here> before deploys"]);
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> memory`, ts: THREAD }));
    const listing = await harness.fake.waitForCall("chat.postMessage");
    expect(listing.args.text).toBe(
      "What I remember about this conversation (2):\n• The deploy window is Friday 3pm\n• Ping @\u2060here before deploys",
    );
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> forget`, ts: "1700002003.000100", thread_ts: THREAD }));
    await harness.fake.waitForCall("chat.postMessage", (c) => c.args.text === "Done: I forgot 2 facts about this conversation.");
    expect(await memory.list(`slack:T0TEAM:C0GENERAL:${THREAD}`)).toEqual([]);
  });

  it("shows and clears the conversation's memory on request", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([]) });
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> memory`, ts: THREAD }));
    const empty = await harness.fake.waitForCall("chat.postMessage");
    expect(empty.args).toMatchObject({ thread_ts: THREAD, text: "I don't remember anything about this conversation yet." });
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> forget`, ts: "1700002002.000100", thread_ts: THREAD }));
    await harness.fake.waitForCall("chat.postMessage", (c) => c.args.text === "There was nothing to forget about this conversation.");
  });
});
