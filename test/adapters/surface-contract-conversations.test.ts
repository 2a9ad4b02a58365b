// Conversations as people have them, on Slack and Discord alike: messages from the same person
// while the bot works on their question (the CONCURRENT_MESSAGES policies, a channel's own), and
// bursts of messages before a run starts. The model is held call by call, so each message is
// known to arrive mid-run, and each is known to be taken before the run goes on.
import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../../src/contracts/types.js";
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
    await until(() => s.answers() === 2, "two answers", 15_000);
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
