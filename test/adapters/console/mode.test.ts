// Console mode end to end: the adapter on PassThrough streams over a real AgentService and a
// SQLite store, with the offline demo models or a scripted model.
import { afterEach, describe, expect, it } from "vitest";
import { createDemoModel } from "../../../src/agent/models/model-demo.js";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";
import { z } from "zod";
import type { Model, ModelReply, ModelRequest, Tool } from "../../../src/contracts/types.js";
import { CONSOLE_CONVERSATION_KEY } from "../../../src/adapters/console/console-adapter.js";
import { noteTool } from "../../support/service-harness.js";
import { startConsole, type ConsoleHarness } from "../../support/console-harness.js";
import { until } from "../../support/until.js";

let harness: ConsoleHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function open(options: Parameters<typeof startConsole>[0]): Promise<ConsoleHarness> {
  harness = await startConsole(options);
  return harness;
}

/** A model whose first call waits until the test opens the gate, so lines can be typed while a run works. */
function gatedModel(inner: Model): { model: Model; open: () => void; calls: () => number } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let count = 0;
  return {
    open: release,
    calls: () => count,
    model: {
      name: inner.name,
      async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelReply> {
        count += 1;
        if (count === 1) await gate;
        return inner.complete(request, signal);
      },
    },
  };
}

describe("console mode with the offline demo model", () => {
  it("announces the offline demo model, what it can do, how to get a real one, and the commands", async () => {
    const term = await open({ model: createDemoModel() });
    await term.waitFor("> ");
    const banner = term.text();
    expect(banner).toContain("OFFLINE DEMO");
    expect(banner).toMatch(/arithmetic and time/);
    expect(banner).toContain("OPENAI_API_KEY");
    expect(banner).toContain("OPENAI_BASE_URL");
    expect(banner).toMatch(/Ollama/);
    for (const command of ["/trace", "/memory", "/forget", "/demo loop", "/help", "/quit"]) expect(banner).toContain(command);
  });

  it("answers an arithmetic question with a progress line per tool call, then shows the steps with /trace", async () => {
    const term = await open({ model: createDemoModel() });
    term.type("/trace");
    await term.waitFor("No run yet.");
    const from = term.mark();
    term.type("what is (3+4)*5");
    await term.waitFor("(3+4)*5 = 35", from);
    expect(term.text().slice(from)).toMatch(/ {2}· step 1: calculator\(\{"expression":"\(3\+4\)\*5"\}\) → 35 \(\d+ ms\)/);

    const traceFrom = term.mark();
    term.type("/trace");
    await term.waitFor("answered", traceFrom);
    const trace = term.text().slice(traceFrom);
    expect(trace).toContain("Step 1");
    expect(trace).toMatch(/✓ calculator\(\{"expression":"\(3\+4\)\*5"\}\)/);
    expect(trace).toContain("Step 2");
  });

  it("/demo loop shows the repeat guard stop a looping model, its stop sentence and the summary", async () => {
    const term = await open({ model: createDemoModel() });
    term.type("/demo loop");
    const end = await term.waitFor("(Stopped: the same call (current_time) was repeated 3 times.)");
    const shown = term.text().slice(0, end);
    expect(shown).toMatch(/step 1: current_time\(\{"timezone":"UTC"\}\) → .*UTC/);
    expect(shown).toContain('step 2: current_time({"timezone":"UTC"}) → repeat, not run');
    expect(shown).toMatch(/I looked up the current time: .*so I was stopped/);
    // The summary comes first, the stop sentence on its own line after it.
    expect(shown).toMatch(/was stopped\.[^\n]*\n\(Stopped: /);

    const from = term.mark();
    term.type("/demo loop what time is it in Tokyo");
    await term.waitFor("(Stopped:", from);
    expect(term.text().slice(from)).toContain('"what time is it in Tokyo"');
  });

  it("/demo loop is a run like any other: /trace shows its steps, and it has a run record naming the guard", async () => {
    const term = await open({ model: createDemoModel() });
    term.type("/demo loop");
    await term.waitFor("(Stopped:");
    const from = term.mark();
    term.type("/trace");
    await term.waitFor("Step 3", from);
    expect(term.text().slice(from)).toContain('✗ current_time({"timezone":"UTC"}) — repeat, not run');
    const records = await term.records();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      conversationKey: "console:demo-loop",
      question: "/demo loop What time is it in UTC?",
      status: "answered",
      stop: { guard: "repeat" },
    });
    expect(records[0]!.steps).toHaveLength(3);
  });

  it("/demo loop with a real model says it is a run of the offline demo model, asks nothing, and /help does not offer it", async () => {
    const model = new ScriptedModel([]);
    const term = await open({ model, description: { kind: "remote", name: "llama3.1" } });
    term.type("/demo loop");
    await term.waitFor("/demo loop is a run of the offline demo model, and this console asks llama3.1");
    const helped = term.mark();
    term.type("/help");
    await term.waitFor("/quit ", helped);
    expect(term.text()).not.toContain("/demo loop [text]");
    expect(model.requests).toHaveLength(0);
  });

  it("says what is wrong with a bad command and carries on", async () => {
    const term = await open({ model: createDemoModel() });
    term.type("/demo");
    await term.waitFor("Usage: /demo loop [question]");
    term.type("/nonsense");
    await term.waitFor("Unknown command /nonsense. Type /help for the commands.");
    term.type("/trace please");
    await term.waitFor("/trace takes nothing after it.");
    term.type("/help");
    await term.waitFor("Type a question, or one of these commands:");
  });

  it("/quit ends the session", async () => {
    const term = await open({ model: createDemoModel() });
    term.type("/quit");
    await term.adapter.closed;
    expect(term.text()).toMatch(/Bye\.\n$/);
  });

  it("the end of input (Ctrl-D) ends the session after the lines already typed", async () => {
    const term = await open({ model: createDemoModel() });
    term.type("what is 6*7");
    term.endInput();
    await term.adapter.closed;
    expect(term.text()).toContain("6*7 = 42");
    expect(term.text()).toMatch(/Bye\.\n$/);
  });

  it("stop() while idle says so and ends the session", async () => {
    const term = await open({ model: createDemoModel() });
    await term.waitFor("> ");
    await term.adapter.stop();
    await term.adapter.closed;
    expect(term.text()).toMatch(/> \nStopping\.\n$/);
  });

  it("stop() while a run works ends the session at once; the run still finishes and shows its answer", async () => {
    const gated = gatedModel(new ScriptedModel([say("Finished after all.")]));
    const term = await open({ model: gated.model });
    term.type("a slow question");
    await until(() => gated.calls() === 1, "the run to reach the model");
    await term.adapter.stop();
    await term.adapter.closed;
    expect(term.text()).toContain("Stopping: the run in progress gets a few seconds to reach a safe point.");
    gated.open();
    await term.waitFor("Finished after all.");
    term.type("typed after the stop");
    await term.service.close(1_000);
    expect(term.text()).not.toMatch(/typed after the stop|> $/);
  });

  it("a run that fails without an outcome says so in general words, and the prompt comes back", async () => {
    // A bug where the run is set up: the run fails before its first step.
    const broken: Tool = {
      name: "broken",
      description: "Never offered.",
      schema: z.object({}),
      effect: "read",
      availableTo: () => {
        throw new Error("a bug in availableTo");
      },
      execute: async () => "never",
    };
    const model = new ScriptedModel([say("never")]);
    const term = await open({ model, tools: [broken] });
    term.type("hello");
    const failed = await term.waitFor("Sorry, something went wrong on my side and I could not finish");
    await term.waitFor(/\n> $/, failed);
    expect(model.requests).toHaveLength(0);
  });

  it("shows the model's text without terminal control sequences", async () => {
    const model = new ScriptedModel([say("\u001b]0;pwned\u0007hello \u001b[31mred\u001b[0m\u0008 world")]);
    const term = await open({ model });
    term.type("say hello");
    await term.waitFor("hello red world");
    expect(term.text()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  });
});

describe("console approvals", () => {
  it("asks approve? [y/N] with the arguments; y runs the write tool once and the run goes on", async () => {
    const note = noteTool();
    const model = new ScriptedModel([call("post_note", { text: "release at 5pm" }), say("Posted the note.")]);
    const term = await open({ model, tools: [note.tool] });
    term.type("post a note about the release");
    const asked = await term.waitFor("approve? [y/N] ");
    expect(term.text()).toMatch(/post_note changes things, so it needs your approval[\s\S]*"text": "release at 5pm"/);
    expect(note.posted).toEqual([]);

    term.type("y");
    await term.waitFor("Posted the note.", asked);
    expect(note.posted).toEqual(["release at 5pm"]);
    expect(term.text().slice(asked)).toMatch(/step 1: post_note\(\{"text":"release at 5pm"\}\) → posted: release at 5pm/);
  });

  it("anything but y denies: the tool does not run and the model hears it was denied", async () => {
    const note = noteTool();
    const model = new ScriptedModel([call("post_note", { text: "hi all" }), say("Understood, I did not post it.")]);
    const term = await open({ model, tools: [note.tool] });
    term.type("post hi");
    const asked = await term.waitFor("approve? [y/N] ");
    term.type("n");
    await term.waitFor("Understood, I did not post it.", asked);
    expect(note.posted).toEqual([]);
    expect(term.text().slice(asked)).toContain('post_note({"text":"hi all"}) → denied, not run');
    const observation = model.requests[1]!.messages.at(-1)!;
    expect(observation).toMatchObject({ role: "tool" });
    expect(observation.role === "tool" && observation.content).toMatch(/^Denied by ada/);
  });

  it("a line typed while the run worked never answers the approval question; it waits its turn as a question", async () => {
    const note = noteTool();
    const gated = gatedModel(new ScriptedModel([call("post_note", { text: "typed ahead" }), say("Not posted."), say("You said y.")]));
    const term = await open({ model: gated.model, tools: [note.tool] });
    term.type("post something");
    await until(() => gated.calls() === 1, "the run to reach the model");
    term.type("y");
    gated.open();
    const asked = await term.waitFor("approve? [y/N] ");
    term.type("no");
    await term.waitFor("Not posted.", asked);
    await term.waitFor("You said y.", asked);
    expect(note.posted).toEqual([]);
  });

  it("the end of input at the question denies, and the session ends", async () => {
    const note = noteTool();
    const model = new ScriptedModel([call("post_note", { text: "eof" }), say("Not posted, as nobody answered.")]);
    const term = await open({ model, tools: [note.tool] });
    term.type("post eof");
    const asked = await term.waitFor("approve? [y/N] ");
    term.endInput();
    await term.adapter.closed;
    await term.waitFor("(No answer: denied.)", asked);
    await term.waitFor("Not posted, as nobody answered.", asked);
    expect(note.posted).toEqual([]);
  });

  it("stop() at the question leaves it undecided and runs nothing", async () => {
    const note = noteTool();
    const model = new ScriptedModel([call("post_note", { text: "later" })]);
    const term = await open({ model, tools: [note.tool] });
    term.type("post later");
    const asked = await term.waitFor("approve? [y/N] ");
    await term.adapter.stop();
    await term.waitFor("(Left undecided: it is asked again at the next start, until it expires.)", asked);
    expect(term.text().slice(asked)).toMatch(/^\nStopping\./);
    expect(note.posted).toEqual([]);
  });

  it("an approval that expires prints the summary and leaves the question", async () => {
    let now = Date.parse("2030-01-01T00:00:00Z");
    const note = noteTool();
    const model = new ScriptedModel([call("post_note", { text: "late" }), say("Nobody approved the note, so it was not posted.")]);
    const term = await open({ model, tools: [note.tool], clock: () => now, env: { APPROVAL_TIMEOUT_MS: "60000" } });
    term.type("post late");
    const asked = await term.waitFor("approve? [y/N] ");
    now += 61_000;
    await term.service.sweepExpiredApprovals();
    await term.waitFor("Nobody approved post_note in time, so it did not run.", asked);
    await term.waitFor("Nobody approved the note, so it was not posted.", asked);
    await term.waitFor(/\n> $/, asked);
    expect(note.posted).toEqual([]);
  });
});

describe("console memory commands", () => {
  it("/memory lists what was remembered and /forget clears it, saying how many", async () => {
    const model = new ScriptedModel([], {
      whenExhausted: (request) =>
        request.responseFormat === "json_object" ? say('{"facts": ["The person is called Ada."]}') : say("Nice to meet you, Ada."),
    });
    const term = await open({ model, description: { kind: "remote", name: "scripted" }, env: { MEMORY_EXTRACT_FACTS: "true" } });
    term.type("/memory");
    await term.waitFor("I don't remember anything about this conversation yet.");
    term.type("my name is Ada");
    await term.waitFor("Nice to meet you, Ada.");
    await until(async () => (await term.service.memory.facts(CONSOLE_CONVERSATION_KEY)).length > 0, "the fact to be remembered");

    let from = term.mark();
    term.type("/memory");
    await term.waitFor("What I remember about this conversation (1):\n• The person is called Ada.", from);
    from = term.mark();
    term.type("/forget");
    await term.waitFor("Done: I forgot 1 fact and 1 earlier turn of this conversation.", from);
    expect(await term.service.memory.facts(CONSOLE_CONVERSATION_KEY)).toEqual([]);
    from = term.mark();
    term.type("/forget");
    await term.waitFor("There was nothing to forget about this conversation.", from);
  });

  it("names a real model in the banner instead of the demo notice", async () => {
    const term = await open({
      model: createDemoModel(),
      description: { kind: "remote", name: "llama3.1", baseUrl: "http://127.0.0.1:11434/v1" },
    });
    await term.waitFor("> ");
    expect(term.text()).toContain("Model: llama3.1, at http://127.0.0.1:11434/v1.");
    expect(term.text()).not.toContain("OFFLINE DEMO");
  });
});
