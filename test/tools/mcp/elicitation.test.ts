// An MCP server asks the person during a call (elicitation), through the real service: the form
// is kept for the run's requester only, defaults fill what they left empty, accept / decline /
// cancel reach the server as the spec has them, an unanswered form is cancelled at
// MCP_ELICITATION_TIMEOUT_MS, and the call's timeout and the run's deadline stand still meanwhile.
import { describe, expect, it } from "vitest";
import type { AgentEvent, ModelRequest, PendingForm, RunOutcome } from "../../../src/contracts/types.js";
import type { AskingLog } from "../../support/mcp-asking-tools.js";
import { startAskingServer } from "../../support/elicitation-harness.js";
import { startMcpService } from "../../support/mcp-harness.js";
import { call, say, ScriptedModel, type ScriptedReply, type ScriptStep } from "../../support/model-scripted.js";
import { originFor } from "../../support/service-harness.js";
import { usePerTest } from "../../support/per-test.js";
import { until } from "../../support/until.js";
import type { RunningAgentService } from "../../../src/runs/service/create-agent-service.js";

const { sqliteUrl, closeAfter } = usePerTest();

const observed = (request: ModelRequest): ScriptedReply => say(`server said: ${request.messages.at(-1)?.content ?? ""}`);

interface Bot {
  readonly service: RunningAgentService;
  readonly log: AskingLog;
  readonly events: AgentEvent[];
  /** The next form the run asks. */
  readonly asked: () => Promise<PendingForm>;
  ask(tool: string): Promise<RunOutcome>;
  /** Each person asks at once, in a conversation of their own; each run calls `tool`. */
  askTogether(tool: string, people: readonly string[]): Array<Promise<RunOutcome>>;
}

/** `toolTimeoutMs`: each MCP call's own timeout (the manager's default, as AGENT_TOOL_TIMEOUT_MS gives it in the app). */
async function startBot(env: Record<string, string> = {}, toolTimeoutMs = 10_000, elicitTimeoutMs?: number): Promise<Bot> {
  const { manager, log, close: closeServer } = await startAskingServer({ toolTimeoutMs, ...(elicitTimeoutMs ? { elicitTimeoutMs } : {}) });
  closeAfter({ close: closeServer });
  const events: AgentEvent[] = [];
  const waiters: Array<(form: PendingForm) => void> = [];
  const sink = (event: AgentEvent) => {
    events.push(event);
    if (event.type === "form_asked") waiters.shift()?.(event.form);
  };
  let model: ScriptedModel | undefined;
  const { service, close } = await startMcpService({
    model: { name: "scripted", complete: (request, signal) => model!.complete(request, signal) },
    manager,
    storeUrl: sqliteUrl(),
    env,
  });
  closeAfter({ close });
  return {
    service,
    log,
    events,
    asked: () => new Promise((resolve) => waiters.push(resolve)),
    ask(tool) {
      model = new ScriptedModel([call(`rooms__${tool}`, {}), observed]);
      return service.ask({ origin: originFor("alice"), text: "book a room" }, sink);
    },
    askTogether(tool, people) {
      const step: ScriptStep = (request) => (request.messages.at(-1)?.role === "tool" ? observed(request) : call(`rooms__${tool}`, {}));
      model = new ScriptedModel([], { whenExhausted: step });
      return people.map((person) => service.ask({ origin: originFor(person, `console:${person}`), text: "book a room" }, sink));
    },
  };
}

const answerOf = (outcome: RunOutcome) => (outcome.status === "answered" ? outcome.answer : `(${outcome.status})`);

describe("a server's form", () => {
  it("is answered by the requester; the defaults fill what they left empty and the server gets accept with the values", async () => {
    const bot = await startBot();
    const asked = bot.asked();
    const running = bot.ask("book_room");
    const form = await asked;
    expect(form.question).toMatchObject({ kind: "form", server: "rooms", message: "Which room, and what for?" });
    expect(form.requester.id).toBe("alice");
    const replied = await bot.service.forms.reply({
      formId: form.formId,
      by: { id: "alice" },
      action: "accept",
      inputs: { purpose: "standup" },
    });
    expect(replied.kind).toBe("answered");
    const outcome = await running;
    expect(bot.log.results).toEqual([
      { action: "accept", content: { room: "oak", purpose: "standup", people: 4, projector: true, note: "none" } },
    ]);
    expect(answerOf(outcome)).toContain('"action":"accept"');
    const result = outcome.steps[0]!.calls[0]!;
    expect(result.forms).toEqual([expect.objectContaining({ server: "rooms", kind: "form", action: "accept", by: { id: "alice" } })]);
    expect(bot.events.map((event) => event.type)).toContain("form_answered");
  });

  it("refuses anyone but the requester, changing nothing; a missing required field is named and the form stays open", async () => {
    const bot = await startBot();
    const asked = bot.asked();
    const running = bot.ask("book_room");
    const form = await asked;
    expect((await bot.service.forms.lookup(form.formId, { id: "mallory" })).kind).toBe("not_requester");
    expect((await bot.service.forms.reply({ formId: form.formId, by: { id: "mallory" }, action: "decline" })).kind).toBe("not_requester");
    const invalid = await bot.service.forms.reply({ formId: form.formId, by: { id: "alice" }, action: "accept", inputs: { people: "40" } });
    expect(invalid).toMatchObject({ kind: "invalid", problems: ["Purpose is required", "People is above 12"] });
    expect((await bot.service.forms.lookup(form.formId, { id: "alice" })).kind).toBe("open");
    await bot.service.forms.reply({ formId: form.formId, by: { id: "alice" }, action: "decline" });
    await running;
    expect(bot.log.results).toEqual([{ action: "decline" }]);
    const again = await bot.service.forms.reply({ formId: form.formId, by: { id: "alice" }, action: "accept", inputs: { purpose: "x" } });
    expect(again).toMatchObject({ kind: "closed", closed: { kind: "answered", action: "decline" } });
  });

  it("cancel reaches the server as cancel", async () => {
    const bot = await startBot();
    const asked = bot.asked();
    const running = bot.ask("book_room");
    const form = await asked;
    await bot.service.forms.reply({ formId: form.formId, by: { id: "alice" }, action: "cancel" });
    await running;
    expect(bot.log.results).toEqual([{ action: "cancel" }]);
  });

  it("an unanswered form is cancelled at MCP_ELICITATION_TIMEOUT_MS, past the tool's timeout and the run's deadline, and the run goes on", async () => {
    const bot = await startBot({ MCP_ELICITATION_TIMEOUT_MS: "1500", AGENT_RUN_TIMEOUT_MS: "1000" }, 1_000);
    const asked = bot.asked();
    const outcome = await bot.ask("book_room");
    const form = await asked;
    expect(bot.log.results).toEqual([{ action: "cancel" }]);
    expect(answerOf(outcome)).toContain('server said: {"action":"cancel"}');
    expect(outcome.steps[0]!.calls[0]!.forms).toEqual([expect.objectContaining({ action: "cancel", reason: "timeout" })]);
    const late = await bot.service.forms.reply({ formId: form.formId, by: { id: "alice" }, action: "decline" });
    expect(late).toMatchObject({ kind: "closed", closed: { kind: "expired" } });
  });

  it("a Stop while the form waits cancels it: the server hears cancel and the run ends with its summary", async () => {
    const bot = await startBot();
    const asked = bot.asked();
    const running = bot.ask("book_room");
    const form = await asked;
    const stopped = await bot.service.stop({ runId: form.runId, stoppedBy: { id: "alice" }, surface: "console" });
    expect(stopped.kind).not.toBe("not_allowed");
    const outcome = await running;
    await until(() => bot.log.results.length > 0, "the server's answer");
    expect(bot.log.results).toEqual([{ action: "cancel" }]);
    expect(outcome.status === "answered" && outcome.stop?.guard).toBe("stopped");
    expect(await bot.service.forms.lookup(form.formId, { id: "alice" })).toMatchObject({ kind: "closed", closed: { kind: "stopped" } });
  });

  it("a question the server withdraws (its own timeout) closes: a late answer is told so, not pretended sent", async () => {
    const bot = await startBot({}, 10_000, 300);
    const asked = bot.asked();
    const outcome = await bot.ask("book_room");
    const form = await asked;
    expect(bot.log.results).toEqual([{ error: expect.stringMatching(/timed out/i) }]);
    expect(outcome.steps[0]!.calls[0]!.forms).toEqual([expect.objectContaining({ action: "cancel", reason: "withdrawn" })]);
    const late = await bot.service.forms.reply({ formId: form.formId, by: { id: "alice" }, action: "accept", inputs: { purpose: "x" } });
    expect(late).toMatchObject({ kind: "closed", closed: { kind: "withdrawn" } });
  });

  it("a link is shown to the requester and the server hears accept; a schema that is not a flat form is refused with the reason", async () => {
    const bot = await startBot();
    const asked = bot.asked();
    await bot.ask("sign_in");
    expect((await asked).question).toEqual({
      kind: "url",
      server: "rooms",
      message: "Sign in to the wiki",
      url: "https://wiki.example.test/sign-in?x=1",
    });
    expect(bot.log.results).toEqual([{ action: "accept" }]);
    await bot.ask("ask_broken");
    expect(bot.log.results[1]).toEqual({
      error: expect.stringMatching(/elicitation refused: field "count": its default is outside its bounds/),
    });
  });
});

describe("two conversations calling the server at once on its one connection", () => {
  it("each question asked on its call's own stream goes to that run's requester, and each answer reaches its own call", async () => {
    const bot = await startBot();
    const forms = Promise.all([bot.asked(), bot.asked()]);
    const running = bot.askTogether("book_room_here", ["alice", "bob"]);
    // A question refused ends its run first: the race shows why instead of waiting for a form that never comes.
    const asked = await Promise.race([forms, ...running.map((run) => run.then((outcome) => `a run ended unasked: ${answerOf(outcome)}`))]);
    expect(asked).toEqual([expect.anything(), expect.anything()]);
    const formOf = (person: string) => (asked as PendingForm[]).find((form) => form.requester.id === person)!;
    // Both calls wait on their forms; they are answered in the other order, each by its own requester.
    for (const [person, purpose] of [
      ["bob", "bob's review"],
      ["alice", "alice's standup"],
    ] as const) {
      expect((await bot.service.forms.lookup(formOf(person).formId, { id: person === "bob" ? "alice" : "bob" })).kind).toBe(
        "not_requester",
      );
      const replied = await bot.service.forms.reply({
        formId: formOf(person).formId,
        by: { id: person },
        action: "accept",
        inputs: { purpose },
      });
      expect(replied.kind).toBe("answered");
    }
    const [alice, bob] = await Promise.all(running);
    expect(answerOf(alice!)).toContain("alice's standup");
    expect(answerOf(alice!)).not.toContain("bob's review");
    expect(answerOf(bob!)).toContain("bob's review");
    expect(answerOf(bob!)).not.toContain("alice's standup");
    expect(alice!.steps[0]!.calls[0]!.forms).toEqual([expect.objectContaining({ action: "accept", by: { id: "alice" } })]);
    expect(bob!.steps[0]!.calls[0]!.forms).toEqual([expect.objectContaining({ action: "accept", by: { id: "bob" } })]);
  });

  it("a question on the session's standalone stream, with calls of two conversations in flight, is refused with the reason", async () => {
    const bot = await startBot();
    const asked = bot.asked();
    const [alice] = bot.askTogether("book_room_here", ["alice"]);
    const form = await asked;
    const [bob] = bot.askTogether("book_room", ["bob"]);
    expect(answerOf(await bob!)).toContain("calls of several conversations are in flight on this server");
    expect(bot.log.results).toEqual([{ error: expect.stringMatching(/elicitation refused/) }]);
    await bot.service.forms.reply({ formId: form.formId, by: { id: "alice" }, action: "decline" });
    expect(answerOf(await alice!)).toContain('server said: {"action":"decline"}');
  });
});
