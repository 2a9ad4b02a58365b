// Slack intake: a question is recorded before anything slow happens (reading the thread), so a
// crash between Slack's ack and the run loses nothing; the worker reads the thread when it runs.
import { afterEach, describe, expect, it } from "vitest";
import { spotOf } from "../../../src/adapters/core/inbound.js";
import { conversationAt } from "../../../src/adapters/slack/slack-place.js";
import { ScriptedModel } from "../../support/model-scripted.js";
import type { ModelRequest } from "../../../src/contracts/types.js";
import { createIntakeStore, intakeIdFor } from "../../../src/runs/intake/intake-store.js";
import { BOT_USER_ID, shownText } from "../../support/fake-slack.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";
import { mentionEvent, postEvent } from "../../support/fake-slack-requests.js";
import { until } from "../../support/until.js";
import { personBlock } from "../../support/data-block-matchers.js";

const open: SlackHarness[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((harness) => harness.close()));
});

const ROOT = "1700300000.000100";
const QUESTION = "1700300002.000100";
const answering = () => new ScriptedModel([], { whenExhausted: { text: "Here is what the thread says." } });
const threadText = (request: ModelRequest) =>
  request.messages.filter((message) => message.role === "user").map((message) => message.content);

async function threadWithQuestion(model: ScriptedModel): Promise<SlackHarness> {
  const harness = await startSlackHarness({ model });
  open.push(harness);
  harness.fake.addMessage({ channel: "C0GENERAL", ts: ROOT, user: "U0BOB", text: "the deploy failed at 09:12" });
  harness.fake.addMessage({
    channel: "C0GENERAL",
    ts: "1700300001.000100",
    thread_ts: ROOT,
    user: "U0CAROL",
    text: "the disk is full on web-3",
  });
  return harness;
}

describe("Slack intake", () => {
  it("records a threaded question before reading the thread; after a crash in between, the next start answers it with the thread", async () => {
    const model = answering();
    const harness = await threadWithQuestion(model);
    harness.fake.fail("conversations.replies", { hang: true });
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> what went wrong?`, ts: QUESTION, thread_ts: ROOT }));
    await harness.fake.waitForCall("conversations.replies");
    // The thread read is still in flight, and the message is already recorded.
    expect(await harness.store.get(`intake:${intakeIdFor("slack", `C0GENERAL:${QUESTION}`)}`)).toMatchObject({
      state: expect.stringMatching(/received|running/),
    });

    // The process stops with the read in flight; the next one takes the message up and reads the thread itself.
    await harness.service.close(20);
    // The new process's start takes the message up.
    await harness.restart();
    await harness.fake.waitForShown((text, message) => text === "Here is what the thread says." && message.thread_ts === ROOT, 10_000);
    expect(harness.fake.shown((text) => text === "Here is what the thread says.")).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
    expect(threadText(model.requests[0]!)).toContainEqual(personBlock("U0CAROL", "C0GENERAL", "the disk is full on web-3"));
  });

  it("a question delivered while the adapter stops (Slack acked it) is still recorded, not dropped", async () => {
    const model = answering();
    const harness = await startSlackHarness({ model });
    open.push(harness);
    // The transport is closing; the core still records what Slack delivered (and acked) meanwhile.
    const stopping = harness.adapter.stop();
    await harness.adapter.core.message({
      at: spotOf("slack", conversationAt({ team: "T0TEAM", channel: "C0GENERAL", traceThreadTs: "1700300100.000100" }), {
        id: "U0ALICE",
        roles: [],
      }),
      text: "are you there?",
      receipt: "C0GENERAL:1700300100.000100",
    });
    await stopping;
    expect(await harness.store.get(`intake:${intakeIdFor("slack", "C0GENERAL:1700300100.000100")}`)).toMatchObject({
      task: { text: "are you there?" },
    });
    await until(() => model.requests.length === 1, "the run");
  });

  it("the worker reads the thread when the run starts, and the model gets what people wrote there", async () => {
    const model = answering();
    const harness = await threadWithQuestion(model);
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> what went wrong?`, ts: QUESTION, thread_ts: ROOT }));
    await until(() => model.requests.length === 1, "the model call");
    expect(threadText(model.requests[0]!)).toEqual(
      expect.arrayContaining([
        personBlock("U0BOB", "C0GENERAL", "the deploy failed at 09:12"),
        personBlock("U0CAROL", "C0GENERAL", "the disk is full on web-3"),
      ]),
    );
    expect(threadText(model.requests[0]!).at(-1)).toBe("what went wrong?");
  });

  it("records under the run the message its answer was posted as, so a replay of the run does not answer again", async () => {
    const harness = await startSlackHarness({ model: answering() });
    open.push(harness);
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> summarise`, ts: "1700300200.000100" }));
    const runId = intakeIdFor("slack", "C0GENERAL:1700300200.000100");
    await until(async () => (await harness.store.get(`answered:${runId}`)) !== undefined, "the answer's mark");
    const answer = harness.fake
      .threadMessages("C0GENERAL", "1700300200.000100")
      .find((message) => shownText(message) === "Here is what the thread says.")!;
    expect(await harness.store.get(`answered:${runId}`)).toMatchObject({ messageId: answer.ts });
    expect(await harness.store.get(`intake:${runId}`)).toMatchObject({ state: "done", result: "answered" });
  });

  describe("a process killed after posting the answer and before marking it", () => {
    const QUESTION_TS = "1700300300.000100";
    const runId = intakeIdFor("slack", `C0GENERAL:${QUESTION_TS}`);
    const answers = (harness: SlackHarness) =>
      harness.fake.shown((text, message) => message.thread_ts === QUESTION_TS && text.startsWith("Here is"));

    /** Answers once, then leaves the store as a kill -9 between the post and the mark does: no mark, the record running. */
    async function killedAfterPosting(): Promise<SlackHarness> {
      const harness = await startSlackHarness({ model: answering() });
      open.push(harness);
      await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> summarise`, ts: QUESTION_TS }));
      await until(async () => ((await harness.store.get(`intake:${runId}`)) as { state?: string } | undefined)?.state === "done", "done");
      await harness.service.close(20);
      await harness.store.delete(`answered:${runId}`);
      const intake = createIntakeStore(harness.store);
      const loaded = await intake.load(runId);
      if (loaded.kind !== "found") throw new Error(loaded.kind);
      await intake.update({ ...loaded.record, state: "running" });
      return harness;
    }

    it("the next process finds the answer in the thread by its metadata and does not post it again", async () => {
      const harness = await killedAfterPosting();
      await harness.restart(new ScriptedModel([], { whenExhausted: { text: "Here is a second answer." } }));
      await until(async () => ((await harness.store.get(`intake:${runId}`)) as { state?: string } | undefined)?.state === "done", "done");
      expect(answers(harness).map(shownText)).toEqual(["Here is what the thread says."]);
      expect(await harness.store.get(`answered:${runId}`)).toMatchObject({ messageId: answers(harness)[0]!.ts });
    });

    it("when Slack can't say whether it was posted, the answer is posted again (a second copy beats a lost answer)", async () => {
      const harness = await killedAfterPosting();
      harness.fake.fail("conversations.replies", { error: "internal_error", times: 10 });
      await harness.restart(new ScriptedModel([], { whenExhausted: { text: "Here is a second answer." } }));
      await until(async () => answers(harness).length === 2, "the second answer");
      expect(answers(harness).map(shownText)).toEqual(["Here is what the thread says.", "Here is a second answer."]);
    });
  });
});
