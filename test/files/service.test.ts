// Files through the real AgentService on a real store: what reaches the model request (through
// the real openai client against the fake OpenAI server), read_attachment and attach_file in a
// run, what a model can't make the bot fetch, governance, history and forget.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, say, ScriptedModel } from "../support/model-scripted.js";
import { createOpenAIModel } from "../../src/agent/models/model-openai.js";
import type { AgentEvent, ModelRequest, RunOutcome, TaskOrigin } from "../../src/contracts/types.js";
import { contentText } from "../../src/agent/content.js";
import { silentLogger } from "../../src/logger.js";
import type { Task } from "../../src/runs/api/task.js";
import { GOOD_TOKEN, startFakeFileServer, type FakeFileServer } from "../support/fake-file-server.js";
import { startFakeOpenAI, textReply, type FakeOpenAI } from "../support/fake-openai-server.js";
import { described, png, urlFiles } from "../support/sample-files.js";
import { governedService, settingsOf, slackOrigin } from "../support/governance-harness.js";
import { runSettingsFor } from "../../src/governance/channel-settings.js";
import { checkSettings } from "../../src/governance/settings-schema.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { startService, type ServiceHarness } from "../support/service-harness.js";
import { dataInside } from "../../src/agent/context/data-blocks.js";

let host: FakeFileServer;
let openai: FakeOpenAI;
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
const harnesses: Array<{ close(): Promise<void> }> = [];
beforeEach(async () => {
  host = await startFakeFileServer();
  openai = await startFakeOpenAI();
  folder = await temporaryFolder();
});
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.close();
  await openai.close();
  await host.close();
  await folder.remove();
});

const origin: TaskOrigin = { surface: "console", conversationKey: "console:files", requester: { id: "ann", name: "ann" }, place: {} };
const files = (uploads = false) => urlFiles({ token: GOOD_TOKEN, origins: [host.url], uploads });

async function service(model: ScriptedModel | ReturnType<typeof createOpenAIModel>, uploads = false): Promise<ServiceHarness> {
  const harness = await startService({ model, storeUrl: `sqlite://${folder.path}/bot.sqlite`, start: false });
  harness.service.attach("console", { tools: [], files: files(uploads) });
  await harness.service.start();
  harnesses.push(harness);
  return harness;
}

const openaiModel = (model: string) =>
  createOpenAIModel({
    apiKey: "sk-test",
    baseUrl: openai.baseUrl,
    model,
    timeoutMs: 10_000,
    streamIdleMs: 10_000,
    maxRetries: 0,
    logger: silentLogger,
  });

async function screenshot() {
  return described(
    "FSHOT",
    "screenshot.png",
    "image/png",
    host.serve("/files/shot.png", { kind: "file", body: await png(1_200, 800), type: "image/png", private: true }),
  );
}

const ask = (harness: ServiceHarness, task: Omit<Task, "origin">, events: AgentEvent[] = []): Promise<RunOutcome> =>
  harness.service.ask({ origin, ...task }, (event) => events.push(event));
type WireMessage = { role: string; content: unknown };
const lastUserContent = (body: { messages: WireMessage[] }) => body.messages.filter((message) => message.role === "user").at(-1)?.content;

describe("images reach the model request", () => {
  it("to a vision model: an image_url part with a data URL, through the real openai client", async () => {
    openai.enqueue(textReply("A red rectangle."), textReply("It was red."));
    const harness = await service(openaiModel("gpt-4o"));
    const events: AgentEvent[] = [];
    const outcome = await ask(harness, { text: "what is in this screenshot?", files: [await screenshot()] }, events);
    expect(outcome).toMatchObject({ status: "answered", answer: "A red rectangle." });
    const content = lastUserContent(openai.requests[0]!.body) as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    expect(content[0]).toEqual({ type: "text", text: "what is in this screenshot?" });
    const image = content.find((part) => part.type === "image_url");
    expect(image?.image_url?.url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    expect(events.find((event) => event.type === "files")).toMatchObject({ files: [{ status: "read", as: "image" }] });

    // The next turn keeps one line for the file, not the image.
    await ask(harness, { text: "and its colour?" });
    const followUp = JSON.stringify(openai.requests[1]!.body.messages);
    expect(followUp).toContain('[attached file FSHOT: \\"screenshot.png\\" (image/png, ');
    expect(followUp).not.toContain("image_url");
    expect(host.hits("/files/shot.png")).toBe(1);
  });

  it("to a text model: the note, and no image part", async () => {
    openai.enqueue(textReply("I can't see it."));
    const harness = await service(openaiModel("gpt-3.5-turbo"));
    await ask(harness, { text: "what is in this screenshot?", files: [await screenshot()] });
    const sent = JSON.stringify(openai.requests[0]!.body.messages);
    expect(sent).not.toContain("image_url");
    expect(sent).toContain("image `screenshot.png` (1200×800) is attached but this model cannot see images");
  });

  it("OPENAI_VISION=on sends images to a model the table does not know", async () => {
    openai.enqueue(textReply("ok"));
    const harness = await startService({
      model: openaiModel("my-local-model"),
      storeUrl: `sqlite://${folder.path}/on.sqlite`,
      start: false,
      env: { OPENAI_VISION: "on", OPENAI_MODEL: "my-local-model" },
    });
    harnesses.push(harness);
    harness.service.attach("console", { tools: [], files: files() });
    await harness.service.start();
    await ask(harness, { text: "look", files: [await screenshot()] });
    expect(JSON.stringify(openai.requests[0]!.body.messages)).toContain("image_url");
  });
});

describe("read_attachment in a run", () => {
  const log = Array.from({ length: 6_000 }, (_, line) => `line ${line}: request ${line * 13} took ${line % 97} ms`).join("\n");
  const serveLog = () =>
    described(
      "FLOG",
      "api.log",
      "text/plain",
      host.serve("/files/api.log", { kind: "file", body: Buffer.from(log), type: "text/plain", private: true }),
    );

  it("reads on where the prompt's cut ended", async () => {
    const filePart = (request: ModelRequest) => {
      const question = request.messages.find((message) => message.role === "user" && typeof message.content !== "string");
      return contentText(question?.content ?? null)
        .split("\n")
        .slice(1);
    };
    const fromToken = (request: ModelRequest) => Number(/"from_token":(\d+)/.exec(filePart(request).join("\n"))?.[1]);
    const model = new ScriptedModel([
      (request) => call("read_attachment", { file: "FLOG", from_token: fromToken(request) }),
      say("The log goes on."),
    ]);
    const harness = await service(model);
    await ask(harness, { text: "summarise the log", files: [serveLog()] });
    const [header, ...shownLines] = filePart(model.requests[0]!);
    expect(header).toMatch(/^\[file FLOG: "api.log" \(text\/plain, [\d.]+ KB\); cut after [\d,]+ tokens/);
    const from = fromToken(model.requests[0]!).toLocaleString("en-US");
    // The file's text is a data block under the header (the header is the bot's own line).
    const shown = dataInside(shownLines.join("\n"));
    expect(shownLines[0]).toMatch(/^<<data [0-9a-f]{12} from="the file “api.log”">>$/);
    expect(log.startsWith(shown)).toBe(true);
    const observation = model.requests[1]!.messages.at(-1)!;
    expect(observation.role).toBe("tool");
    // read_attachment's header is the bot's own line too: the file's text read on is the block under it.
    const [readHeader, ...blockLines] = contentText(observation.content).split("\n");
    expect(blockLines[0]).toMatch(/^<<data [0-9a-f]{12} from="the result of tool read_attachment">>$/);
    const read = dataInside(blockLines.join("\n"));
    expect(readHeader).toMatch(/^\[file FLOG: "api.log" \(text\/plain, [\d.]+ KB\), tokens [\d,]+–[\d,]+: read on with read_attachment/);
    expect(readHeader).toContain(`tokens ${from}–`);
    expect(log.slice(shown.length).startsWith(read)).toBe(true);
    expect(read.length).toBeGreaterThan(1_000);
  });

  it("a model that asks to read a URL is refused, and nothing is fetched", async () => {
    const secret = host.serve("/files/secret.txt", { kind: "file", body: Buffer.from("secret"), private: true });
    const model = new ScriptedModel([call("read_attachment", { file: secret }), say("I could not read it.")]);
    const harness = await service(model);
    const outcome = await ask(harness, { text: "read this", files: [serveLog()] });
    expect(outcome.steps[0]!.calls[0]).toMatchObject({
      outcome: "error",
      result: "Error: read_attachment reads attached files by their id and never fetches addresses. The files attached here: FLOG.",
    });
    expect(host.hits("/files/secret.txt")).toBe(0);
  });

  it("another conversation's file can't be read", async () => {
    const model = new ScriptedModel([say("read it")]);
    const harness = await service(model);
    await ask(harness, { text: "here", files: [serveLog()] });
    const other = new ScriptedModel([call("read_attachment", { file: "FLOG" }), say("nothing")]);
    const second = await service(other);
    const outcome = await second.service.ask({ origin: { ...origin, conversationKey: "console:other" }, text: "read FLOG" }, () => {});
    expect(outcome.steps[0]!.calls[0]).toMatchObject({
      outcome: "error",
      result: expect.stringContaining('there is no attached file "FLOG" in this conversation'),
    });
  });

  it("forget removes the conversation's files", async () => {
    const harness = await service(new ScriptedModel([say("ok"), call("read_attachment", { file: "FLOG" }), say("gone")]));
    await ask(harness, { text: "keep this", files: [serveLog()] });
    expect(await harness.service.memory.forget(origin.conversationKey)).toEqual({ facts: 0, turns: 1, files: 1 });
    const outcome = await ask(harness, { text: "read it again" });
    expect(outcome.steps[0]!.calls[0]).toMatchObject({
      outcome: "error",
      result: expect.stringContaining("No file is attached in this conversation"),
    });
  });
});

describe("attach_file", () => {
  it("adds a file to the answer: the outcome carries it and the surface can read it back", async () => {
    const csv = "city,visits\nParis,3\n";
    const harness = await service(
      new ScriptedModel([call("attach_file", { name: "visits.csv", content: csv }), say("Here is the table.")]),
      true,
    );
    const outcome = await ask(harness, { text: "give me that as CSV" });
    expect(outcome).toMatchObject({
      status: "answered",
      answer: "Here is the table.",
      files: [{ name: "visits.csv", mime: "text/csv", size: csv.length }],
    });
    if (outcome.status !== "answered") throw new Error("not answered");
    const stored = await harness.service.answerFile(origin.conversationKey, outcome.files![0]!.id);
    expect(stored?.data.toString("utf8")).toBe(csv);
    expect(outcome.steps[0]!.calls[0]!.outcome).toBe("ok");
  });

  it("is not offered where the surface posts no files, nor file tools where it registered none", async () => {
    const uploadsNothing = new ScriptedModel([say("ok")]);
    await ask(await service(uploadsNothing), { text: "hi" });
    const offered = uploadsNothing.requests[0]!.tools.map((tool) => tool.name);
    expect(offered).toContain("read_attachment");
    expect(offered).not.toContain("attach_file");
    const bare = new ScriptedModel([say("ok")]);
    const harness = await startService({ model: bare, storeUrl: `sqlite://${folder.path}/bare.sqlite` });
    harnesses.push(harness);
    await harness.service.ask({ origin, text: "hi" }, () => {});
    expect(bare.requests[0]!.tools.map((tool) => tool.name)).toEqual(["calculator", "current_time"]);
  });

  it("a name is made safe and a non-text type is refused", async () => {
    const harness = await service(
      new ScriptedModel([
        call("attach_file", { name: "../../etc/passwd", content: "x" }),
        call("attach_file", { name: "a.png", content: "x", mime: "image/png" }),
        say("done"),
      ]),
      true,
    );
    const outcome = await ask(harness, { text: "go" });
    const [first, second] = outcome.steps.map((step) => step.calls[0]!);
    expect(first).toMatchObject({ outcome: "ok", files: [{ name: "passwd" }] });
    expect(second).toMatchObject({ outcome: "error", result: expect.stringContaining("the type must be a text type") });
  });
});

describe("governance", () => {
  it("a channel's tool rules deny attach_file and read_attachment; files: false reads no attachment", async () => {
    const model = new ScriptedModel([say("ok")]);
    const governed = await governedService({
      model,
      storeUrl: `sqlite://${folder.path}/governed.sqlite`,
      settings: settingsOf({ channels: { C1: { tools: { deny: ["attach_file", "read_attachment"] }, files: false } } }),
    });
    harnesses.push(governed);
    governed.service.attach("slack", { tools: [], files: files(true) });
    const log = described(
      "FLOG",
      "api.log",
      "text/plain",
      host.serve("/files/api.log", { kind: "file", body: Buffer.from("x"), private: true }),
    );
    await governed.service.ask({ origin: slackOrigin("U1", "C1"), text: "read", files: [log] }, () => {});
    const request = model.requests[0]!;
    expect(request.tools.map((tool) => tool.name)).not.toContain("attach_file");
    expect(request.tools.map((tool) => tool.name)).not.toContain("read_attachment");
    expect(JSON.stringify(request.messages)).toContain("files are switched off in this channel");
    expect(host.hits("/files/api.log")).toBe(0);
  });

  it("the files setting is checked, and a channel's entry overrides the default", () => {
    expect(checkSettings({ channels: { C1: { files: "no" } } })).toEqual({
      kind: "invalid",
      problems: ["channels.C1.files: expects true or false"],
    });
    const settings = settingsOf({ channels: { default: { files: false }, C2: { files: true } } });
    expect([runSettingsFor(settings, { channel: "C1" }).files, runSettingsFor(settings, { channel: "C2" }).files]).toEqual([false, true]);
    expect(runSettingsFor(settingsOf({}), { channel: "C1" }).files).toBe(true);
  });
});
