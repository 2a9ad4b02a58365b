// Durable runs through real bot processes: kill -9 mid-run and during an approved write, then
// start again on the same store and count what each person received.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { APPROVE_ACTION } from "../../../src/adapters/slack/approval-message.js";
import { STOP_ACTION } from "../../../src/adapters/slack/slack-working.js";
import { silentLogger } from "../../../src/logger.js";
import { openStore } from "../../../src/memory/keyv-store.js";
import { createIntakeStore, type IntakeRecord } from "../../../src/runs/intake/intake-store.js";
import { freePort } from "../../support/free-port.js";
import { startBot, type BotProcess } from "../../support/bot-child.js";
import { textReply, toolCallReply, type RecordedRequest } from "../../support/fake-openai-server.js";
import { BOT_USER_ID, shownText } from "../../support/fake-slack.js";
import { TEAM_ID } from "../../support/fake-slack-types.js";
import { blockActionPayload, clickOnMessage, mentionEvent, postEvent, postInteraction } from "../../support/fake-slack-requests.js";
import { until } from "../../support/until.js";
import { useSlackBotHarness } from "../../support/slack-bot-harness.js";

const harness = useSlackBotHarness();

const toolResults = (request: RecordedRequest): string[] =>
  (request.body.messages as Array<{ role: string; content: string }>)
    .filter((message) => message.role === "tool")
    .map((message) => message.content);
const allText = (request: RecordedRequest): string => JSON.stringify(request.body.messages);

async function bot(options: { storeUrl: string; port: number; env?: Record<string, string> }): Promise<BotProcess> {
  const started = await startBot({ slackApiUrl: harness.slack.apiUrl, openaiBaseUrl: harness.model.baseUrl, ...options });
  harness.bots.push(started);
  return started;
}

async function kill9(process: BotProcess): Promise<void> {
  process.child.kill("SIGKILL");
  await process.exited;
}

/** Waits for the approval message in `thread` of #general; the function it gives clicks Approve on it as Alice, the requester. */
async function approvalIn(thread: string): Promise<(eventsUrl: string) => Promise<unknown>> {
  await harness.slack.waitForCall("chat.postMessage", (call) => JSON.stringify(call.args.blocks ?? []).includes(APPROVE_ACTION), 15_000);
  const message = harness.slack.threadMessages("C0GENERAL", thread).find((m) => JSON.stringify(m.blocks ?? []).includes(APPROVE_ACTION))!;
  return (eventsUrl) => postInteraction(eventsUrl, clickOnMessage(message, { user: "U0ALICE", actionId: APPROVE_ACTION }));
}

/** Alice asks in `thread` for a post to #random and approves it; Slack meets the end of the answer's stream
 * ("Posted.", the call that carries the run's metadata) with `failure`, the process is killed there, and a
 * second one starts on the same store. */
async function killedAtTheAnswerOfAnApprovedWrite(
  thread: string,
  failure: { hang: true } | { appliedThenHang: true },
): Promise<{ first: BotProcess; second: BotProcess }> {
  const storeUrl = `sqlite://${harness.folder.path}/bot.sqlite`;
  const port = await freePort();
  const script = (request: RecordedRequest) =>
    toolResults(request).length === 0
      ? toolCallReply([{ name: "post_message", args: { channel: "C0RANDOM", text: "Standup moved" }, id: "w1" }])
      : textReply("Posted.");
  harness.model.enqueue(...Array.from({ length: 10 }, () => script));

  const first = await bot({ storeUrl, port });
  await postEvent(first.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> tell #random the standup moved`, ts: thread }));
  const approve = await approvalIn(thread);
  await approve(first.eventsUrl);
  const answersEnd = (args: Record<string, unknown>) => args.metadata !== undefined;
  harness.slack.fail("chat.stopStream", { ...failure, matching: answersEnd });
  await harness.slack.waitForCall("chat.stopStream", (call) => answersEnd(call.args), 15_000);
  await kill9(first);
  return { first, second: await bot({ storeUrl, port }) };
}

/** Rethrows a wait's failure with the end of each named process's log, which says where the run stood. */
const withLogsOf =
  (processes: Record<string, BotProcess>) =>
  (error: Error): never => {
    const logs = Object.entries(processes).map(([name, process]) => `\n${name}:\n${process.logs().slice(-3000)}`);
    throw new Error(`${error.message}${logs.join("")}`);
  };

describe("a run survives kill -9", () => {
  it("after step 2 of a 4-step run: the restart answers in the same thread, steps 1–2 are not asked again, nothing is posted twice", async () => {
    const storeUrl = `sqlite://${harness.folder.path}/bot.sqlite`;
    const port = await freePort();
    let hungOnce = false;
    // Steps are told apart by how many tool results the request carries.
    const script = (request: RecordedRequest) => {
      const done = toolResults(request).length;
      if (done === 0) return toolCallReply([{ name: "calculator", args: { expression: "1+1" }, id: "c1" }]);
      if (done === 1) return toolCallReply([{ name: "calculator", args: { expression: "2+2" }, id: "c2" }]);
      if (done === 2 && !hungOnce) {
        hungOnce = true;
        return { hang: true as const };
      }
      if (done === 2) return toolCallReply([{ name: "calculator", args: { expression: "3+3" }, id: "c3" }]);
      return textReply("The sums are 2, 4 and 6.");
    };
    harness.model.enqueue(...Array.from({ length: 10 }, () => script));

    const first = await bot({ storeUrl, port });
    await postEvent(first.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> add things up`, ts: "1700100000.000100" }));
    await harness.model.waitForRequests(3, 15_000);
    await kill9(first);
    expect(harness.slack.shown((text) => text === "The sums are 2, 4 and 6.")).toHaveLength(0);

    const second = await bot({ storeUrl, port });
    const answer = await harness.slack
      .waitForShown((text) => text === "The sums are 2, 4 and 6.", 20_000)
      .catch((error: Error) => {
        throw new Error(`${error.message}\nfirst:\n${first.logs()}\nsecond:\n${second.logs()}`);
      });
    expect(answer).toMatchObject({ channel: "C0GENERAL", thread_ts: "1700100000.000100" });
    // The first request after the restart already carries steps 1 and 2; no request asks for them again.
    expect(toolResults(harness.model.requests[3]!)).toEqual(["2", "4"]);
    expect(harness.model.requests[3]!.body.messages).toEqual(harness.model.requests[2]!.body.messages);
    expect(harness.model.requests.map((request) => toolResults(request).length)).toEqual([0, 1, 2, 2, 3]);
    expect(harness.slack.shown((text) => text === "The sums are 2, 4 and 6.")).toHaveLength(1);
  }, 60_000);

  it("during an approved write: the restart answers, the model and the trace get the unknown outcome, the write ran at most once", async () => {
    const storeUrl = `sqlite://${harness.folder.path}/bot.sqlite`;
    const port = await freePort();
    const THREAD = "1700200000.000100";
    const script = (request: RecordedRequest) => {
      if (toolResults(request).length === 0)
        return toolCallReply([{ name: "post_message", args: { channel: "C0RANDOM", text: "Standup moved" }, id: "w1" }]);
      return textReply(
        allText(request).includes("outcome of this write is unknown")
          ? "I can't tell whether it was posted; please check #random."
          : "Posted.",
      );
    };
    harness.model.enqueue(...Array.from({ length: 10 }, () => script));

    const first = await bot({ storeUrl, port });
    await postEvent(first.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> tell #random the standup moved`, ts: THREAD }));
    const approve = await approvalIn(THREAD);
    harness.slack.fail("chat.postMessage", { hang: true });
    await approve(first.eventsUrl);
    await harness.slack.waitForCall("chat.postMessage", (call) => call.args.channel === "C0RANDOM", 15_000);
    await kill9(first);

    await bot({ storeUrl, port });
    await harness.slack.waitForShown((text) => text === "I can't tell whether it was posted; please check #random.", 20_000);
    expect(harness.slack.callsTo("chat.postMessage").filter((call) => call.args.channel === "C0RANDOM")).toHaveLength(1);
    expect(allText(harness.model.requests[harness.model.requests.length - 1]!)).toContain("the outcome of this write is unknown");
    const shown = JSON.stringify(harness.slack.calls.filter((call) => call.args.channel === "C0GENERAL").map((call) => call.args));
    expect(shown).toContain("outcome of this write is unknown");
  }, 60_000);

  it("after an approved write, while its answer is being posted: the restart answers once, and the write is not made again", async () => {
    const THREAD = "1700210000.000100";
    // Slack has the end of the answer's stream and has not applied it: the stream is left open.
    const { first, second } = await killedAtTheAnswerOfAnApprovedWrite(THREAD, { hang: true });

    await harness.slack.waitForShown((text) => text === "Posted.", 20_000).catch(withLogsOf({ first, second }));
    expect(harness.slack.callsTo("chat.postMessage").filter((call) => call.args.channel === "C0RANDOM")).toHaveLength(1);
    expect(harness.slack.shown((text) => text === "Posted.")).toHaveLength(1);
    expect(harness.slack.leftStreaming()).toEqual([]);
  }, 60_000);

  it("after an approved write, killed once Slack posted its answer and before the bot heard back: the restart finds it there and posts nothing again", async () => {
    const THREAD = "1700212000.000100";
    // Slack ended the answer's stream in the thread; nothing marked the run answered.
    const { first, second } = await killedAtTheAnswerOfAnApprovedWrite(THREAD, { appliedThenHang: true });

    await until(
      () => second.logs().includes("a resumed run's answer is in its conversation already"),
      "the restart to find the answer in the thread",
      20_000,
    ).catch(withLogsOf({ first, second }));
    expect(harness.slack.shown((text, message) => message.thread_ts === THREAD && text === "Posted.")).toHaveLength(1);
    expect(harness.slack.callsTo("chat.postMessage").filter((call) => call.args.channel === "C0RANDOM")).toHaveLength(1);
  }, 60_000);

  it("a step after an approved write, killed while the model answers: the restart goes on from that step, asking neither it nor the write again", async () => {
    const storeUrl = `sqlite://${harness.folder.path}/bot.sqlite`;
    const port = await freePort();
    const THREAD = "1700215000.000100";
    let hungOnce = false;
    const script = (request: RecordedRequest) => {
      const done = toolResults(request).length;
      if (done === 0) return toolCallReply([{ name: "post_message", args: { channel: "C0RANDOM", text: "Standup moved" }, id: "w1" }]);
      if (done === 1) return toolCallReply([{ name: "calculator", args: { expression: "2+2" }, id: "c2" }]);
      if (!hungOnce) {
        hungOnce = true;
        return { hang: true as const };
      }
      return textReply("Posted, and 2+2 is 4.");
    };
    harness.model.enqueue(...Array.from({ length: 10 }, () => script));

    const first = await bot({ storeUrl, port });
    await postEvent(first.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> tell #random the standup moved, then add 2+2`, ts: THREAD }));
    const approve = await approvalIn(THREAD);
    await approve(first.eventsUrl);
    // The third request (after the write and the sum) hangs: the process dies while the model answers.
    await harness.model.waitForRequests(3, 15_000);
    await kill9(first);

    const second = await bot({ storeUrl, port });
    await harness.slack.waitForShown((text) => text === "Posted, and 2+2 is 4.", 20_000).catch(withLogsOf({ first, second }));
    // The restart's one request already carries the write's and the sum's results.
    expect(harness.model.requests.map((request) => toolResults(request).length)).toEqual([0, 1, 2, 2]);
    expect(harness.slack.callsTo("chat.postMessage").filter((call) => call.args.channel === "C0RANDOM")).toHaveLength(1);
    expect(harness.slack.shown((text) => text === "Posted, and 2+2 is 4.")).toHaveLength(1);
  }, 60_000);

  it("killed twice after an approved write, each time while the model answers: each restart goes on from the last step", async () => {
    const storeUrl = `sqlite://${harness.folder.path}/bot.sqlite`;
    const port = await freePort();
    const THREAD = "1700216000.000100";
    const hung = new Set<number>();
    const script = (request: RecordedRequest) => {
      const done = toolResults(request).length;
      if (done === 0) return toolCallReply([{ name: "post_message", args: { channel: "C0RANDOM", text: "Standup moved" }, id: "w1" }]);
      // The requests after the first and the second sum hang once each: a process dies in each.
      if (done >= 2 && !hung.has(done)) {
        hung.add(done);
        return { hang: true as const };
      }
      if (done === 1) return toolCallReply([{ name: "calculator", args: { expression: "2+2" }, id: "c2" }]);
      if (done === 2) return toolCallReply([{ name: "calculator", args: { expression: "3+3" }, id: "c3" }]);
      return textReply("Posted; 2+2 is 4 and 3+3 is 6.");
    };
    harness.model.enqueue(...Array.from({ length: 10 }, () => script));

    const first = await bot({ storeUrl, port });
    await postEvent(first.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> tell #random the standup moved, then add up`, ts: THREAD }));
    const approve = await approvalIn(THREAD);
    await approve(first.eventsUrl);
    await harness.model.waitForRequests(3, 15_000);
    await kill9(first);
    const second = await bot({ storeUrl, port });
    await harness.model.waitForRequests(5, 20_000);
    await kill9(second);

    const third = await bot({ storeUrl, port });
    await harness.slack.waitForShown((text) => text === "Posted; 2+2 is 4 and 3+3 is 6.", 20_000).catch(withLogsOf({ second, third }));
    expect(harness.model.requests.map((request) => toolResults(request).length)).toEqual([0, 1, 2, 2, 3, 3]);
    expect(harness.slack.callsTo("chat.postMessage").filter((call) => call.args.channel === "C0RANDOM")).toHaveLength(1);
  }, 90_000);

  it("a policy-allowed write in a step after an approved one, killed before that step's checkpoint: the restart tells the model its result", async () => {
    const storeUrl = `sqlite://${harness.folder.path}/bot.sqlite`;
    const port = await freePort();
    const THREAD = "1700217000.000100";
    let replies = 0;
    const script = (request: RecordedRequest) => {
      const done = toolResults(request).length;
      if (done === 0) return toolCallReply([{ name: "post_message", args: { channel: "C0RANDOM", text: "Standup moved" }, id: "w1" }]);
      if (done === 1) {
        replies += 1;
        return toolCallReply([
          { name: "create_schedule", args: { when: "every day at 9:00 UTC", what: "post the standup notes" }, id: `s_${replies}` },
          { name: "read_channel", args: { channel: "C0RANDOM" }, id: `r_${replies}` },
        ]);
      }
      return textReply(`Done. (${toolResults(request).join(" | ")})`);
    };
    harness.model.enqueue(...Array.from({ length: 10 }, () => script));
    const env = { TOOL_POLICY: "create_schedule=allow" };

    const first = await bot({ storeUrl, port, env });
    await postEvent(first.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> move the standup and schedule its notes`, ts: THREAD }));
    const approve = await approvalIn(THREAD);
    // The read after the schedule hangs once: the process is killed while it is in flight, after the schedule is made.
    harness.slack.fail("conversations.history", { hang: true });
    await approve(first.eventsUrl);
    await harness.slack.waitForCall("conversations.history", () => true, 15_000);
    await kill9(first);

    const second = await bot({ storeUrl, port, env });
    const answer = await harness.slack.waitForShown((text) => text.startsWith("Done."), 20_000).catch(withLogsOf({ first, second }));
    // Asked once more after the restart, with the approved write's and the schedule's outcomes (the read is not kept): the schedule as it was made.
    expect(harness.model.requests.map((request) => toolResults(request).length)).toEqual([0, 1, 2]);
    expect(shownText(answer)).toMatch(/Scheduled \S+: `every day at 9:00 UTC`/);
    expect(harness.slack.callsTo("chat.postMessage").filter((call) => call.args.channel === "C0RANDOM")).toHaveLength(1);
  }, 60_000);

  it("a run stopped by its requester, killed while its summary was written: the restart ends it as stopped too", async () => {
    const storeUrl = `sqlite://${harness.folder.path}/bot.sqlite`;
    const port = await freePort();
    const THREAD = "1700220000.000100";
    let summaries = 0;
    // Step 1 reads, step 2 hangs (the Stop cancels it); the summary (a request offering no tools) hangs once.
    const script = (request: RecordedRequest) => {
      if (!request.body.tools) return summaries++ === 0 ? { hang: true as const } : textReply("Summary: 6*7 is 42 so far.");
      if (toolResults(request).length === 0) return toolCallReply([{ name: "calculator", args: { expression: "6*7" }, id: "c1" }]);
      return toolResults(request).length === 1 && summaries === 0 ? { hang: true as const } : textReply("The full answer.");
    };
    harness.model.enqueue(...Array.from({ length: 10 }, () => script));

    const first = await bot({ storeUrl, port });
    await postEvent(first.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> work it out`, ts: THREAD }));
    await harness.model.waitForRequests(2, 15_000);
    const button = await harness.slack.waitForCall("chat.postMessage", (c) => JSON.stringify(c.args.blocks ?? []).includes(STOP_ACTION));
    const runId = (button.args.blocks as Array<{ accessory: { value: string } }>)[0]!.accessory.value;
    const ts = harness.slack.threadMessages("C0GENERAL", THREAD).find((m) => JSON.stringify(m.blocks ?? []).includes(STOP_ACTION))!.ts;
    await postInteraction(
      first.eventsUrl,
      blockActionPayload({ user: "U0ALICE", actionId: STOP_ACTION, value: runId, channel: "C0GENERAL", messageTs: ts, threadTs: THREAD }),
    );
    await until(() => summaries === 1, "the summary's model call", 15_000);
    await kill9(first);

    const second = await bot({ storeUrl, port });
    await harness.slack.waitForShown((text) => text.includes("Stopped by u0alice."), 20_000).catch(withLogsOf({ second }));
    const texts = harness.slack.shown().map(shownText);
    expect(texts).toContain("Summary: 6*7 is 42 so far.");
    expect(texts).not.toContain("The full answer.");
  }, 60_000);

  it("after a policy-allowed write finished and before its step's checkpoint: the restart knows it ran, and it is not made again", async () => {
    const storeUrl = `sqlite://${harness.folder.path}/bot.sqlite`;
    const port = await freePort();
    const THREAD = "1700250000.000100";
    // A real model's call ids are new in every reply; asked again without the write's result, it asks for the write again.
    let replies = 0;
    const script = (request: RecordedRequest) => {
      if (toolResults(request).length > 0) return textReply(`Paid. (${toolResults(request).join(" | ")})`);
      replies += 1;
      return toolCallReply([
        { name: "post_message", args: { channel: "C0RANDOM", text: "Pay invoice 7" }, id: `pay_${replies}` },
        { name: "read_channel", args: { channel: "C0RANDOM" }, id: `read_${replies}` },
      ]);
    };
    harness.model.enqueue(...Array.from({ length: 10 }, () => script));
    // The read after the write hangs once: the process is killed while it is in flight, after the write is done.
    harness.slack.fail("conversations.history", { hang: true });
    const env = { TOOL_POLICY: "post_message=allow" };
    const payments = () => harness.slack.callsTo("chat.postMessage").filter((call) => call.args.channel === "C0RANDOM");

    const first = await bot({ storeUrl, port, env });
    await postEvent(first.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> pay invoice 7 and check #random`, ts: THREAD }));
    await harness.slack.waitForCall("conversations.history", () => true, 15_000);
    expect(payments()).toHaveLength(1);
    await kill9(first);

    const second = await bot({ storeUrl, port, env });
    const answer = await harness.slack
      .waitForShown((text) => text.startsWith("Paid."), 20_000)
      .catch((error: Error) => {
        throw new Error(`${error.message}\nfirst:\n${first.logs()}\nsecond:\n${second.logs()}`);
      });
    expect(payments()).toHaveLength(1);
    // The model was told the write's real result, as the write returned it.
    expect(shownText(answer)).toContain("Posted to C0RANDOM (ts ");
    expect(answer).toMatchObject({ channel: "C0GENERAL", thread_ts: THREAD });
  }, 60_000);
});

/** When the process that owns the SQLite file (its pid in the `.owner` file) no longer runs; polls until `deadline` (performance.now()). */
async function ownerGone(databasePath: string, deadline: number): Promise<number> {
  for (;;) {
    let pid: number | undefined;
    try {
      pid = (JSON.parse(readFileSync(`${databasePath}.owner`, "utf8")) as { pid?: number }).pid;
    } catch {
      pid = undefined;
    }
    if (pid === undefined || !isRunning(pid) || performance.now() > deadline) return performance.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("a kill -9 between a message's last two writes", () => {
  it("its record done, still listed as unfinished: the next start takes it off the list and neither runs nor answers it again", async () => {
    const storeUrl = `sqlite://${harness.folder.path}/bot.sqlite`;
    const port = await freePort();
    const done: IntakeRecord = {
      version: 1,
      id: "kHA7U2VjDuL1TH34HndFUXVa",
      state: "done",
      owner: "a-boot-that-died",
      task: {
        origin: {
          surface: "slack",
          conversationKey: `slack:${TEAM_ID}:C0GENERAL:1700500000.000100`,
          requester: { id: "U0ALICE" },
          place: { team: TEAM_ID, channel: "C0GENERAL", thread_ts: "1700500000.000100" },
        },
        text: "what is 6*7?",
      },
      receivedAt: Date.now() - 60_000,
      result: "answered",
    };
    // What the kill leaves: update() wrote the done record, and died before its member left the set.
    const seeded = await openStore(storeUrl, silentLogger);
    try {
      await seeded.setIfAbsentListed(
        { key: `intake:${done.id}`, value: done, ttlMs: 60 * 60_000 },
        {
          set: "intake:unfinished",
          member: JSON.stringify({ id: done.id, conversationKey: done.task.origin.conversationKey, receivedAt: done.receivedAt }),
          ttlMs: 60 * 60_000,
        },
      );
      expect((await createIntakeStore(seeded).unfinished()).map((entry) => entry.id)).toEqual([done.id]);
    } finally {
      await seeded.close();
    }

    const restarted = await bot({ storeUrl, port });
    await until(async () => {
      const metrics = await fetch(`http://127.0.0.1:${port}/metrics`).then((response) => response.text());
      return /agent_bot_queue_depth 0\b/.test(metrics) && restarted.logs().includes('"msg":"started"');
    }, "the recovered queue to drain");
    restarted.child.kill("SIGTERM");
    await restarted.exited;

    const after = await openStore(storeUrl, silentLogger);
    try {
      expect(await createIntakeStore(after).unfinished()).toEqual([]);
      expect(await createIntakeStore(after).load(done.id)).toMatchObject({ kind: "found", record: { state: "done" } });
    } finally {
      await after.close();
    }
    expect(harness.model.requests).toHaveLength(0);
    expect(harness.slack.callsTo("chat.postMessage")).toHaveLength(0);
    expect(harness.slack.callsTo("chat.startStream")).toHaveLength(0);
  }, 60_000);
});

/** Each conversation: one calculator step that takes `delayMs`, then the answer naming its question. */
function slowTwoStepScript(delayMs: number) {
  return (request: RecordedRequest) => {
    const question = (request.body.messages as Array<{ role: string; content: string }>)
      .filter((message) => message.role === "user")
      .pop()!.content;
    if (toolResults(request).length === 0)
      return { ...toolCallReply([{ name: "calculator", args: { expression: "6*7" }, id: "c1" }]), delayMs };
    return textReply(`answer for ${question.trim()}`);
  };
}

const answersFor = (questions: readonly string[]) =>
  questions.map((question) => harness.slack.shown((text) => text === `answer for ${question}`).length);

describe("graceful shutdown", () => {
  for (const viaNpm of [false, true]) {
    it(`SIGTERM with 50 runs queued and 10 running${viaNpm ? " (npm start, signal to the process group)" : ""}: exits within 10 s, and after the restart all 60 are answered exactly once`, async () => {
      const storeUrl = `sqlite://${harness.folder.path}/bot.sqlite`;
      const port = await freePort();
      harness.model.enqueue(...Array.from({ length: 200 }, () => slowTwoStepScript(1_000)));
      const questions = Array.from({ length: 60 }, (_, index) => `question ${index + 1}`);
      const first = await startBot({
        slackApiUrl: harness.slack.apiUrl,
        openaiBaseUrl: harness.model.baseUrl,
        storeUrl,
        port,
        env: { MAX_CONCURRENT_RUNS: "10" },
        viaNpm,
      });
      harness.bots.push(first);
      for (const [index, question] of questions.entries()) {
        expect(
          (
            await postEvent(
              first.eventsUrl,
              mentionEvent({ text: `<@${BOT_USER_ID}> ${question}`, ts: `1700300000.${String(index).padStart(6, "0")}` }),
            )
          ).status,
        ).toBe(200);
      }
      await harness.model.waitForRequests(10, 15_000);
      const signalled = performance.now();
      if (viaNpm) process.kill(-(first.child.pid as number), "SIGTERM");
      else first.child.kill("SIGTERM");
      const exit = await first.exited;
      // npm may go before the bot it started: the bot is gone when the store's owner (its pid) is.
      const botGoneAt = viaNpm ? await ownerGone(`${harness.folder.path}/bot.sqlite`, signalled + 15_000) : exit.at;
      expect(Math.max(exit.at, botGoneAt) - signalled).toBeLessThan(10_000);
      if (!viaNpm) expect(exit.code).toBe(0);
      expect(answersFor(questions).filter((count) => count > 0).length).toBeLessThan(60);

      const second = await bot({ storeUrl, port });
      await until(
        () => answersFor(questions).every((count) => count >= 1),
        `all 60 answers; got ${answersFor(questions).filter(Boolean).length}\n${second.logs().slice(-3000)}`,
        40_000,
        100,
      );
      second.child.kill("SIGTERM");
      await second.exited;
      expect(answersFor(questions)).toEqual(questions.map(() => 1));
    }, 120_000);
  }
});

describe("npm start without the process group", () => {
  it("SIGTERM to the npm pid alone: the bot it started shuts down too (no orphan), and the restart answers what was in flight", async () => {
    const storeUrl = `sqlite://${harness.folder.path}/bot.sqlite`;
    const port = await freePort();
    harness.model.enqueue(...Array.from({ length: 20 }, () => slowTwoStepScript(1_000)));
    const questions = ["orphan 1", "orphan 2", "orphan 3"];
    const first = await startBot({ slackApiUrl: harness.slack.apiUrl, openaiBaseUrl: harness.model.baseUrl, storeUrl, port, viaNpm: true });
    harness.bots.push(first);
    const botPid = (JSON.parse(readFileSync(`${harness.folder.path}/bot.sqlite.owner`, "utf8")) as { pid: number }).pid;
    try {
      for (const [index, question] of questions.entries()) {
        expect(
          (
            await postEvent(
              first.eventsUrl,
              mentionEvent({ text: `<@${BOT_USER_ID}> ${question}`, ts: `1700310000.${String(index).padStart(6, "0")}` }),
            )
          ).status,
        ).toBe(200);
      }
      await harness.model.waitForRequests(3, 15_000);
      first.child.kill("SIGTERM");
      // Within main.ts's 10 s backstop, with room for a loaded machine.
      await until(() => !isRunning(botPid), `the bot (pid ${botPid}) to exit after npm got SIGTERM`, 15_000, 50);
    } finally {
      // Whatever npm left behind does not outlive the test.
      try {
        process.kill(-(first.child.pid as number), "SIGKILL");
      } catch {
        // The group is gone already.
      }
    }
    const second = await bot({ storeUrl, port });
    await until(() => answersFor(questions).every((count) => count >= 1), `all 3 answers\n${second.logs().slice(-3000)}`, 40_000, 100);
    second.child.kill("SIGTERM");
    await second.exited;
    expect(answersFor(questions)).toEqual([1, 1, 1]);
  }, 90_000);
});

describe("one process per SQLite file", () => {
  it("a second bot process on the same file stops at start with one line; after the first one is killed, a new one starts", async () => {
    const storeUrl = `sqlite://${harness.folder.path}/bot.sqlite`;
    const first = await bot({ storeUrl, port: await freePort() });
    await expect(
      startBot({ slackApiUrl: harness.slack.apiUrl, openaiBaseUrl: harness.model.baseUrl, storeUrl, port: await freePort() }),
    ).rejects.toThrow(
      new RegExp(
        `Cannot start: another bot process \\(instance [0-9a-f-]+, pid ${first.child.pid} on [^)]+\\) already uses .*bot\\.sqlite`,
      ),
    );
    await kill9(first);
    await bot({ storeUrl, port: await freePort() });
  }, 60_000);
});
