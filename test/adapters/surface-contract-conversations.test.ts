// Conversations as people have them, on Slack and Discord alike: messages from the same person
// while the bot works on their question (the CONCURRENT_MESSAGES policies, a channel's own), and
// bursts of messages before a run starts. The model is held call by call, so each message is
// known to arrive mid-run, and each is known to be taken before the run goes on.
import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../../src/contracts/types.js";
import { createAuditLog } from "../../src/governance/audit-log.js";
import { CONVERSATION_DRIVERS, type ConversationOptions, type ConversationSession } from "../support/conversation-drivers.js";
import { call, say, type ScriptStep } from "../support/model-scripted.js";
import { usePerTest } from "../support/per-test.js";
import { until } from "../support/until.js";

const perTest = usePerTest();

/** A run of two model calls: a calculator call, then "Done." once a tool answered in this run. */
const twoSteps: ScriptStep = (request) =>
  request.messages.some((message) => message.role === "tool") ? say("Done.") : call("calculator", { expression: "1+1" });

const userTexts = (request: ModelRequest) =>
  request.messages
    .filter((message) => message.role === "user")
    .map((message) => (typeof message.content === "string" ? message.content : ""));
const lastUser = (request: ModelRequest) => userTexts(request).at(-1);

describe.each(CONVERSATION_DRIVERS)("conversations on $name", (driver) => {
  async function start(options: Omit<ConversationOptions, "reply"> = {}): Promise<ConversationSession> {
    return perTest.closeAfter(await driver.start({ reply: twoSteps, ...options }));
  }
  /** Resolves once the platform's message is recorded (taken), so where the run stands is known. */
  const taken = (s: ConversationSession, message: string) =>
    until(async () => (await s.store.get(`intake:${s.intakeIdOf(message)}`)) !== undefined, `message ${message} taken`);
  const recordOf = async (s: ConversationSession, message: string) =>
    (await s.store.get(`intake:${s.intakeIdOf(message)}`)) as { state: string; result?: string; into?: string };

  it("queue (the default): messages sent while it works are answered after, in order, each in a run of its own", async () => {
    const s = await start();
    await s.ask("alice", "summarise #releases");
    await s.model.reached(0);
    await taken(s, await s.say("alice", "only this week"));
    await taken(s, await s.say("alice", "skip the mobile ones"));
    s.model.releaseAll();
    await until(() => s.answers() === 3, "three answers", 15_000);
    expect(s.requests.map(lastUser).filter((text) => !text?.startsWith("The person"))).toEqual([
      "summarise #releases",
      "summarise #releases",
      "only this week",
      "only this week",
      "skip the mobile ones",
      "skip the mobile ones",
    ]);
  });

  it("steer: two messages mid-run join it before its next model call, shown in the trace; one run, one answer", async () => {
    const s = await start({ env: { CONCURRENT_MESSAGES: "steer" } });
    await s.ask("alice", "summarise #releases");
    await s.model.reached(0);
    const first = await s.say("alice", "only this week");
    const second = await s.say("alice", "skip the mobile ones");
    await taken(s, first);
    await taken(s, second);
    s.model.releaseAll();
    await until(() => s.answers() === 1, "the answer", 15_000);
    expect(s.requests).toHaveLength(2);
    expect(userTexts(s.requests[1]!).slice(-2)).toEqual(["The person added: only this week", "The person added: skip the mobile ones"]);
    await until(() => /added to the run in progress/.test(s.publicText()), "the trace saying so");
    expect(await recordOf(s, first)).toMatchObject({ state: "done", result: "steered" });
    expect(await recordOf(s, second)).toMatchObject({ state: "done", result: "steered" });
  });

  it("steer, set by the channel's own settings over CONCURRENT_MESSAGES", async () => {
    const s = await start({ env: { CONCURRENT_MESSAGES: "queue" }, channel: { concurrentMessages: "steer" } });
    await s.ask("alice", "summarise #releases");
    await s.model.reached(0);
    await taken(s, await s.say("alice", "only this week"));
    s.model.releaseAll();
    await until(() => s.answers() === 1, "the answer", 15_000);
    expect(lastUser(s.requests[1]!)).toBe("The person added: only this week");
  });

  it("steer: a message after the run's last model call began is a new run", async () => {
    const s = await start({ env: { CONCURRENT_MESSAGES: "steer" } });
    await s.ask("alice", "summarise #releases");
    s.model.release(0);
    await s.model.reached(1);
    await taken(s, await s.say("alice", "and last week?"));
    s.model.releaseAll();
    await until(() => s.answers() === 2, "two answers", 15_000);
    expect(s.requests.map(lastUser)).toEqual(["summarise #releases", "summarise #releases", "and last week?", "and last week?"]);
  });

  it("steer: someone else's message mid-run is queued, answered after as their own", async () => {
    const s = await start({ env: { CONCURRENT_MESSAGES: "steer" } });
    await s.ask("alice", "summarise #releases");
    await s.model.reached(0);
    const bobs = await s.say("bob", "what about mine?");
    await taken(s, bobs);
    s.model.releaseAll();
    await until(async () => (await recordOf(s, bobs))?.state === "done", "bob's question answered", 15_000);
    expect(s.answers()).toBe(2);
    expect(s.requests.map(lastUser)).toEqual(["summarise #releases", "summarise #releases", "what about mine?", "what about mine?"]);
    expect(await recordOf(s, bobs)).toMatchObject({ state: "done", result: "answered" });
  });

  it("interrupt: the run stops as a Stop would (its summary), and a new run asks both messages", async () => {
    const s = await start({ env: { CONCURRENT_MESSAGES: "interrupt" } });
    await s.ask("alice", "summarise #releases");
    await s.model.reached(0);
    await taken(s, await s.say("alice", "actually skip the mobile ones"));
    s.model.releaseAll();
    await until(() => s.answers() === 2, "the stopped run's summary and the new answer", 15_000);
    expect(s.publicText()).toMatch(/Stopped by/);
    const asked = s.requests.map(lastUser);
    expect(asked.at(-1)).toBe("summarise #releases\n\nactually skip the mobile ones");
  });

  it("interrupt, two messages: the first asks the stopped question again with it, the second comes after, in order", async () => {
    const s = await start({ env: { CONCURRENT_MESSAGES: "interrupt" } });
    await s.ask("alice", "summarise #releases");
    await s.model.reached(0);
    await taken(s, await s.say("alice", "only this week"));
    await taken(s, await s.say("alice", "and skip the mobile ones"));
    s.model.releaseAll();
    await until(() => s.answers() === 3, "the stopped run's summary and two answers", 15_000);
    const asked = s.requests.map(lastUser).filter((text, index, all) => all.indexOf(text) === index);
    expect(asked.slice(-2)).toEqual(["summarise #releases\n\nonly this week", "and skip the mobile ones"]);
  });

  it("steer with three messages mid-run: all three join it, in order", async () => {
    const s = await start({ env: { CONCURRENT_MESSAGES: "steer" } });
    await s.ask("alice", "summarise #releases");
    await s.model.reached(0);
    for (const text of ["only this week", "skip the mobile ones", "and the web ones too"]) await taken(s, await s.say("alice", text));
    s.model.releaseAll();
    await until(() => s.answers() === 1, "the answer", 15_000);
    expect(userTexts(s.requests[1]!).slice(-3)).toEqual([
      "The person added: only this week",
      "The person added: skip the mobile ones",
      "The person added: and the web ones too",
    ]);
  });

  it("a burst of three messages within MESSAGE_DEBOUNCE_MS is one question: one run, one answer", async () => {
    const s = await start({ env: { MESSAGE_DEBOUNCE_MS: "1000" } });
    s.model.releaseAll();
    await s.ask("alice", "summarise #releases");
    await s.say("alice", "only this week");
    await s.say("alice", "skip the mobile ones");
    await until(() => s.answers() === 1, "the answer", 15_000);
    expect(s.requests).toHaveLength(2);
    expect(lastUser(s.requests[0]!)).toBe("summarise #releases\n\nonly this week\n\nskip the mobile ones");
  });
});

describe.each(CONVERSATION_DRIVERS)("edits and deletions on $name", (driver) => {
  async function start(options: Omit<ConversationOptions, "reply"> = {}): Promise<ConversationSession> {
    return perTest.closeAfter(await driver.start({ reply: twoSteps, ...options }));
  }
  const recordOf = async (s: ConversationSession, message: string) =>
    (await s.store.get(`intake:${s.intakeIdOf(message)}`)) as { state: string; result?: string } | undefined;
  const taken = (s: ConversationSession, message: string) =>
    until(async () => (await recordOf(s, message)) !== undefined, `message ${message} taken`);
  /** Alice's second question, taken while her first one's run works: it waits its turn. */
  const queuedBehindRun = async (): Promise<{ s: ConversationSession; queued: string }> => {
    const s = await start();
    await s.ask("alice", "summarise #releases");
    await s.model.reached(0);
    const queued = await s.say("alice", "only this week");
    await taken(s, queued);
    return { s, queued };
  };

  it("an edit of a question that has not started replaces it", async () => {
    const { s, queued } = await queuedBehindRun();
    await s.edit(queued, "only last week");
    await until(
      async () => ((await recordOf(s, queued)) as { task?: { text: string } } | undefined)?.task?.text === "only last week",
      "the edit",
    );
    s.model.releaseAll();
    await until(() => s.answers() === 2, "two answers", 15_000);
    expect(s.requests.map(lastUser).at(-1)).toBe("only last week");
  });

  it("an edit while its run works joins it before its next model call (steer), shown in the trace", async () => {
    const s = await start();
    const question = await s.ask("alice", "summarise #releases");
    await s.model.reached(0);
    // Resolves once the edit is recorded: the run finds it at its next model call.
    await s.edit(question, "summarise #deploys");
    s.model.releaseAll();
    await until(() => s.answers() === 1, "the answer", 15_000);
    expect(s.requests).toHaveLength(2);
    expect(lastUser(s.requests[1]!)).toBe("The person edited their question to: summarise #deploys");
    await until(() => /question edited, in the run in progress/.test(s.publicText()), "the trace saying so");
  });

  it("an edit after the answer is left; one that mentions the bot where the message did not is a new question", async () => {
    const s = await start();
    s.model.releaseAll();
    const question = await s.ask("alice", "summarise #releases");
    await until(async () => (await recordOf(s, question))?.state === "done", "the answer", 15_000);
    await s.edit(question, "summarise #deploys");
    const aside = await s.chat("alice", "lunch anyone?");
    expect(await recordOf(s, aside)).toBeUndefined();
    await s.edit(aside, "what is for lunch?", { mentionBot: true });
    await until(() => s.answers() === 2, "the new question's answer", 15_000);
    expect(s.requests.map(lastUser)).toEqual(["summarise #releases", "summarise #releases", "what is for lunch?", "what is for lunch?"]);
  });

  it("a question deleted before it ran is dropped: never answered", async () => {
    const { s, queued } = await queuedBehindRun();
    await s.remove(queued);
    await until(async () => (await recordOf(s, queued))?.result === "deleted", "the question dropped");
    s.model.releaseAll();
    const later = await s.say("alice", "thanks");
    await until(async () => (await recordOf(s, later))?.state === "done", "the next question answered", 15_000);
    expect(s.answers()).toBe(2);
    expect(s.requests.map(lastUser)).not.toContain("only this week");
  });

  it("a question deleted while its run works stops it: no summary, no answer, nothing remembered", async () => {
    const s = await start();
    const question = await s.ask("alice", "summarise #releases");
    await s.model.reached(0);
    await s.remove(question);
    await until(async () => (await recordOf(s, question))?.result === "deleted", "the run ended as deleted", 15_000);
    // Its first model call was cancelled where it waited, and no call was made for a summary.
    expect(s.requests).toHaveLength(0);
    expect(s.answers()).toBe(0);
    expect(s.publicText()).not.toMatch(/Stopped by/);
  });

  it("a question deleted after its run showed work ends that work with a line saying so, not a summary", async () => {
    const s = await start();
    const question = await s.ask("alice", "summarise #releases");
    s.model.release(0);
    await s.model.reached(1);
    await s.remove(question);
    await until(async () => (await recordOf(s, question))?.result === "deleted", "the run ended as deleted", 15_000);
    await until(() => /the question was deleted/.test(s.publicText()), "the trace's last line");
    // Its second model call was cancelled where it waited; none was made for a summary.
    expect(s.requests).toHaveLength(1);
    expect(s.publicText()).toMatch(/calculator/);
  });

  it("the audit log records each edit and deletion that changed a question, with who and what became of it", async () => {
    const { s, queued } = await queuedBehindRun();
    await s.edit(queued, "only last week");
    await s.remove(queued);
    await until(async () => (await createAuditLog(s.store).list({ limit: 10 })).length === 2, "two audit entries");
    const entries = await createAuditLog(s.store).list({ limit: 10 });
    expect(entries.map((entry) => [entry.kind, entry.reason, entry.runId])).toEqual([
      ["question_deleted", "dropped", s.intakeIdOf(queued)],
      ["question_edited", "replaced", s.intakeIdOf(queued)],
    ]);
    s.model.releaseAll();
  });

  it("a question deleted after its answer leaves the answer, unless DELETE_ANSWERS_WITH_QUESTION", async () => {
    const kept = await start();
    kept.model.releaseAll();
    const first = await kept.ask("alice", "summarise #releases");
    await until(async () => (await recordOf(kept, first))?.state === "done", "the answer", 15_000);
    await kept.remove(first);
    const after = await kept.say("alice", "thanks");
    await until(async () => (await recordOf(kept, after))?.state === "done", "the next question answered", 15_000);
    expect(kept.answers()).toBe(2);

    const gone = await start({ env: { DELETE_ANSWERS_WITH_QUESTION: "yes" } });
    gone.model.releaseAll();
    const asked = await gone.ask("alice", "summarise #releases");
    await until(async () => (await recordOf(gone, asked))?.state === "done", "the answer", 15_000);
    await gone.remove(asked);
    await until(() => gone.answers() === 0, "the answer deleted with its question", 15_000);
    expect(gone.publicText()).not.toMatch(/added to the run|calculator/);
  });
});
