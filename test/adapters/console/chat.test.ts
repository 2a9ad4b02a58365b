// The console behaves like a chat box, driven through its input stream as a terminal: a paste is
// one question, Ctrl-C clears a half-typed line and denies at an approval (a second one at an
// empty prompt leaves), an approval a stopped session left is asked again at the next start and a
// question it left running is answered then, /new and /forget leave the earlier turns behind, a
// long line is not echoed back whole.
import { contentText } from "../../../src/agent/content.js";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDemoModel } from "../../../src/agent/models/model-demo.js";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";
import type { Model, ModelRequest } from "../../../src/contracts/types.js";
import { startConsole, type ConsoleHarness } from "../../support/console-harness.js";
import { temporaryFolder } from "../../support/temporary-folder.js";
import { until } from "../../support/until.js";
import { noteTool } from "../../support/service-harness.js";

const PASTE_START = "\u001b[200~";
const PASTE_END = "\u001b[201~";

let harnesses: ConsoleHarness[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const harness of harnesses) await harness.close();
  harnesses = [];
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function open(options: Parameters<typeof startConsole>[0]): Promise<ConsoleHarness> {
  const harness = await startConsole({ terminal: true, ...options });
  harnesses.push(harness);
  return harness;
}

/** A store folder that outlives one console, for restarts. */
async function sharedStore(): Promise<Record<string, string>> {
  const folder = await temporaryFolder();
  cleanups.push(() => folder.remove());
  return { STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}` };
}

/** The questions the model was asked (the last user message of each answering call). */
function questions(model: ScriptedModel): string[] {
  return model.requests.filter((request) => request.responseFormat !== "json_object").map(lastUserText);
}

function lastUserText(request: ModelRequest): string {
  return contentText(request.messages.filter((message) => message.role === "user").at(-1)?.content ?? null);
}

const answering = () => new ScriptedModel([], { whenExhausted: say("Noted.") });

describe("the console's input, as a terminal sends it", () => {
  it("takes a pasted block of three lines as one question, sent with Enter", async () => {
    const model = answering();
    const term = await open({ model });
    await term.waitFor("> ");
    term.press(`${PASTE_START}first line\rsecond line\rthird line${PASTE_END}`);
    term.press("\r");
    await term.waitFor("Noted.");
    expect(questions(model)).toEqual(["first line\nsecond line\nthird line"]);
    // Echoed on one row of the prompt, each line break shown as a mark.
    expect(term.text()).toContain("first line↵second line↵third line");
  });

  it("Ctrl-C clears a half-typed line; a second one at the empty prompt leaves", async () => {
    const model = answering();
    const term = await open({ model });
    await term.waitFor("> ");
    term.press("half a thou");
    term.press("\u0003");
    term.type("the real question");
    await term.waitFor("Noted.");
    expect(questions(model)).toEqual(["the real question"]);
    expect(term.text()).not.toContain("Bye.");
    term.press("\u0003");
    await term.adapter.closed;
    expect(term.text()).toContain("Bye.");
  });

  it("Ctrl-C at approve? [y/N] denies the write, and the session goes on", async () => {
    const note = noteTool();
    const model = new ScriptedModel([call("post_note", { text: "hi all" }), say("Understood, not posted.")], {
      whenExhausted: say("Still here."),
    });
    const term = await open({ model, tools: [note.tool] });
    term.type("post hi");
    const asked = await term.waitFor("approve? [y/N] ");
    term.press("\u0003");
    await term.waitFor("(Ctrl-C: denied.)", asked);
    await term.waitFor("Understood, not posted.", asked);
    expect(note.posted).toEqual([]);
    term.type("are you there?");
    await term.waitFor("Still here.", asked);
    expect(term.text()).not.toContain("Bye.");
  });
});

describe("the console across a restart", () => {
  it("asks again, at the next start, an approval the last session left undecided", async () => {
    const env = await sharedStore();
    const note = noteTool();
    const first = await open({ model: new ScriptedModel([call("post_note", { text: "from yesterday" })]), tools: [note.tool], env });
    first.type("post the note");
    await first.waitFor("approve? [y/N] ");
    await first.close();
    harnesses = harnesses.filter((harness) => harness !== first);
    expect(first.text()).toContain("asked again at the next start");

    const second = await open({ model: new ScriptedModel([say("Posted it.")]), tools: [note.tool], env });
    const asked = await second.waitFor("still waiting for your decision");
    await second.waitFor("approve? [y/N] ", asked);
    expect(second.text().slice(asked)).toContain('"text": "from yesterday"');
    second.type("y");
    await second.waitFor("Posted it.", asked);
    expect(note.posted).toEqual(["from yesterday"]);
  });

  it("answers at the next start, between the lines, a question the last session left running", async () => {
    const env = await sharedStore();
    const hanging: Model = { name: "gpt-4o-mini", complete: () => new Promise<never>(() => {}) };
    const first = await open({ model: hanging, env });
    first.type("a slow question");
    await first.waitFor("step 1: waiting for the model");
    await first.close();
    harnesses = harnesses.filter((harness) => harness !== first);

    const second = await open({ model: new ScriptedModel([say("Answered after the restart.")]), env });
    await second.waitFor("Run: a slow question\nAnswered after the restart.");
    expect(first.text()).not.toContain("Answered after the restart.");
  });

  it("says it continues the conversation; /new leaves the earlier turns behind", async () => {
    const env = await sharedStore();
    const first = await open({ model: answering(), env });
    first.type("my project is called Lark");
    await first.waitFor("Noted.");
    await first.close();
    harnesses = [];

    const model = answering();
    const second = await open({ model, env });
    await second.waitFor("Continuing your conversation (1 earlier turn); /new starts a fresh one.");
    second.type("/new");
    await second.waitFor("A fresh conversation: the 1 earlier turn is left behind.");
    second.type("what is my project called?");
    await second.waitFor("Noted.");
    const sent = model.requests
      .at(-1)!
      .messages.map((message) => message.content ?? "")
      .join("\n");
    expect(sent).not.toContain("Lark");
    second.type("/new");
    await second.waitFor("A fresh conversation: the 1 earlier turn is left behind.");
  });

  it("a store that fails while picking up the last session is one line, and the session goes on", async () => {
    const term = await open({
      model: answering(),
      serviceOverrides: { waitingApprovals: () => Promise.reject(new Error("SQLITE_BUSY: database is locked")) },
    });
    await term.waitFor(/Could not pick up where the last session left off \(SQLITE_BUSY: database is\s+locked\)\./);
    term.type("still there?");
    await term.waitFor("Noted.");
  });

  it("/forget forgets the earlier turns too", async () => {
    const model = answering();
    const term = await open({ model });
    term.type("remember the code word: heron");
    await term.waitFor("Noted.");
    const from = term.mark();
    term.type("/forget");
    await term.waitFor("Done: I forgot 1 earlier turn of this conversation.", from);
    term.type("what was the code word?");
    await until(() => questions(model).length === 2, "the second question");
    const sent = model.requests
      .at(-1)!
      .messages.map((message) => message.content ?? "")
      .join("\n");
    expect(sent).not.toContain("heron");
  });
});

describe("what the console shows back", () => {
  it("a 6,000-character question is not echoed back whole, nor the model's instructions", async () => {
    // Not a terminal: every line is echoed after the prompt, as in a pipe.
    const term = await startConsole({ model: createDemoModel() });
    harnesses.push(term);
    await term.waitFor("> ");
    const from = term.mark();
    term.type(`what is ${"1+".repeat(3_000)}1`);
    await term.waitFor("I could not work out", from);
    await term.waitFor("\n> ", from);
    const shown = term.text().slice(from);
    expect(shown.length).toBeLessThan(1_500);
    expect(shown).toContain("(6009 characters)");
    expect(shown).toContain("expects at most 500 characters");
    expect(shown).not.toContain("Fix them and call again");
  });
});
