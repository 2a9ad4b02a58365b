// Failover as the app wires it (startApp, console mode), with the real openai SDK against two fake
// OpenAI servers on 127.0.0.1: endpoint A answers 429 / 500 / hangs / refuses the connection and
// B answers, and the person gets B's answer with the trace saying so; both down, the stop names
// both; B's own key, window and prices come from the settings file, and no key is written anywhere.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../../src/app.js";
import { chooseModel } from "../../src/app-model.js";
import { loadConfig } from "../../src/config.js";
import { silentLogger } from "../../src/logger.js";
import { answered, runQuestion } from "../support/loop-harness.js";
import { errorReply, startFakeOpenAI, textReply, type FakeOpenAI, type FakeResponse } from "../support/fake-openai-server.js";
import { freePort } from "../support/free-port.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { until } from "../support/until.js";

const A_KEY = "sk-key-of-endpoint-a-0123456789";
const B_KEY = "sk-key-of-endpoint-b-9876543210";
const ADMIN_TOKEN = "admin-token-for-tests-0123456789";

let folder: { path: string; remove: () => Promise<void> };
let app: RunningApp | undefined;
const servers: FakeOpenAI[] = [];

beforeEach(async () => {
  folder = await temporaryFolder();
});

afterEach(async () => {
  await app?.stop();
  app = undefined;
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await folder.remove();
});

async function fakeServer(...responses: FakeResponse[]): Promise<FakeOpenAI> {
  const server = await startFakeOpenAI();
  servers.push(server);
  server.enqueue(...responses);
  return server;
}

const host = (baseUrl: string) => new URL(baseUrl).host;

interface Console {
  /** Types a line and resolves with what the console showed until its next prompt. */
  say(line: string): Promise<string>;
  /** The explorer's JSON API (PORT in console mode). */
  api(path: string): Promise<any>;
}

/** The app in console mode with A as OPENAI_BASE_URL and B (gpt-4o) as its fallback, B's key from the settings file. */
async function consoleWith(a: string, b: string, env: Record<string, string> = {}): Promise<Console> {
  const settings = join(folder.path, "bot.settings.json");
  const endpoint = `gpt-4o@${b}`;
  await writeFile(
    settings,
    JSON.stringify({ models: { [endpoint]: { apiKeyVariable: "B_OPENAI_KEY", contextTokens: 64_000, prices: { input: 1, output: 2 } } } }),
  );
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (chunk: Buffer) => (shown += chunk.toString("utf8")));
  const result = await startApp(
    {
      STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}`,
      OPENAI_API_KEY: A_KEY,
      OPENAI_BASE_URL: a,
      OPENAI_MODEL: "gpt-4o-mini",
      OPENAI_TIMEOUT_MS: "1000",
      OPENAI_MAX_RETRIES: "2",
      MODEL_FALLBACKS: endpoint,
      B_OPENAI_KEY: B_KEY,
      BOT_SETTINGS: settings,
      MEMORY_EXTRACT_FACTS: "false",
      ADMIN_TOKEN,
      PORT: "0",
      ...env,
    },
    { input, output, username: "ada" },
  );
  if (result.kind !== "started") throw new Error(result.message);
  app = result.app;
  await until(() => shown.endsWith("> "), "the prompt");
  return {
    async say(line) {
      const from = shown.length;
      input.write(`${line}\n`);
      await until(() => shown.length > from && shown.endsWith("> "), `the console's reply to ${line}`);
      return shown.slice(from);
    },
    async api(path) {
      const response = await fetch(`http://127.0.0.1:${app!.adminPort}/admin/api/${path}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      return response.json();
    },
  };
}

describe("endpoint A failing, B answering", () => {
  it.each([
    ["answers 429", errorReply(429, "Rate limit reached", { "retry-after-ms": "0" }), "429 from"],
    ["answers 500", errorReply(500, "boom"), "500 from"],
    ["hangs", { hang: true } as const, "no reply from"],
  ])("A %s: the person gets B's answer, and the trace says who answered and why", async (_what, failure, cause) => {
    const a = await fakeServer(failure);
    const b = await fakeServer(textReply("B says 42."));
    const chat = await consoleWith(a.baseUrl, b.baseUrl);
    expect(await chat.say("what is 6*7?")).toContain("B says 42.");
    const trace = await chat.say("/trace");
    expect(trace).toContain(`↪ gpt-4o answered instead of gpt-4o-mini: ${cause}`);
    if (cause !== "no reply from") expect(trace).toContain(`${cause} ${host(a.baseUrl)}`);
    // Each endpoint with its own key.
    expect(a.requests[0]?.headers.authorization).toBe(`Bearer ${A_KEY}`);
    expect(b.requests[0]?.headers.authorization).toBe(`Bearer ${B_KEY}`);
  });

  it("A refuses the connection: B's answer, and the record names B and prices its step at B's prices, with no key in it", async () => {
    const a = `http://127.0.0.1:${await freePort()}/v1`;
    const b = await fakeServer(textReply("B says 42.", { prompt: 1_000_000, completion: 1_000_000 }));
    const chat = await consoleWith(a, b.baseUrl);
    expect(await chat.say("what is 6*7?")).toContain("B says 42.");
    expect(await chat.say("/trace")).toContain(`gpt-4o answered instead of gpt-4o-mini: could not connect to ${a} (connection refused`);
    await until(async () => (await chat.api("runs")).runs.length > 0, "the run's record");
    const record = await chat.api(`runs/${(await chat.api("runs")).runs[0].runId}`);
    expect(record.steps[0]).toMatchObject({
      endpoint: `gpt-4o@${b.baseUrl}`,
      switches: [{ from: `gpt-4o-mini@${a}`, to: `gpt-4o@${b.baseUrl}` }],
    });
    expect(record.cost).toBe(3);
    const stored = JSON.stringify(record) + (await readFile(join(folder.path, "bot.sqlite"))).toString("latin1");
    expect(stored).not.toContain(A_KEY);
    expect(stored).not.toContain(B_KEY);
  });
});

describe("both endpoints down", () => {
  it("the stop names both and what each did", async () => {
    const a = await fakeServer(...Array.from({ length: 5 }, () => errorReply(503, "overloaded")));
    const b = `http://127.0.0.1:${await freePort()}/v1`;
    const chat = await consoleWith(a.baseUrl, b);
    const shown = await chat.say("what is 6*7?");
    expect(shown).toContain(
      `Stopped: no model endpoint answered (gpt-4o-mini at ${host(a.baseUrl)}: the model server is failing (503: "overloaded"); `,
    );
    expect(shown).toContain(`gpt-4o at ${host(b)}: could not connect to ${b} (connection refused: ECONNREFUSED))`);
    expect(shown).not.toMatch(/[{}]/);
  });
});

describe("the breaker shared by every run", () => {
  it("costs one failure, not one per run; after the cool-down one probe closes it again", async () => {
    const a = await fakeServer(errorReply(500, "down"), textReply("A is back."), textReply("A again."));
    const b = await fakeServer(...Array.from({ length: 5 }, () => textReply("B answers.")));
    const chat = await consoleWith(a.baseUrl, b.baseUrl, { MODEL_BREAKER_FAILURES: "1", MODEL_BREAKER_COOLDOWN_MS: "1000" });
    for (const question of ["one?", "two?", "three?"]) expect(await chat.say(question)).toContain("B answers.");
    expect(a.requests).toHaveLength(1);
    expect(await chat.say("/trace")).toContain(
      "↪ gpt-4o answered instead of gpt-4o-mini: its circuit breaker is open (last failure: 500 from",
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await chat.say("four?")).toContain("A is back.");
    expect(await chat.say("five?")).toContain("A again.");
    expect(a.requests).toHaveLength(3);
    expect(b.requests).toHaveLength(3);
  });
});

describe("many runs at once", () => {
  it("ask A not at all while its breaker is open", async () => {
    const a = await fakeServer(...Array.from({ length: 40 }, () => errorReply(429, "slow down")));
    const b = await fakeServer(...Array.from({ length: 40 }, () => textReply("B answers.")));
    const config = loadConfig({
      OPENAI_API_KEY: A_KEY,
      OPENAI_BASE_URL: a.baseUrl,
      MODEL_FALLBACKS: `gpt-4o@${b.baseUrl}`,
      MODEL_BREAKER_FAILURES: "3",
    });
    const chosen = await chooseModel(config, silentLogger, { models: {}, env: {} });
    if (chosen.kind === "failed") throw new Error(chosen.problem);
    const wave = () => Promise.all(Array.from({ length: 20 }, (_, run) => runQuestion(chosen.model, `question ${run}`)));
    // The first wave reaches A before any of it failed: each of those runs pays one failure, then B answers.
    for (const { outcome } of await wave()) expect(answered(outcome).answer).toBe("B answers.");
    const firstWave = a.requests.length;
    expect(chosen.breakers?.health(`gpt-4o-mini@${a.baseUrl}`).state).toBe("open");
    for (const { outcome } of await wave()) expect(answered(outcome).answer).toBe("B answers.");
    expect(a.requests.length - firstWave).toBe(0);
  });
});

describe("the settings file's models section", () => {
  it("naming a key variable that is not set stops the start with one line", async () => {
    const settings = join(folder.path, "bot.settings.json");
    await writeFile(settings, JSON.stringify({ models: { "gpt-4o@https://eu.example/v1": { apiKeyVariable: "EU_OPENAI_KEY" } } }));
    const result = await startApp({
      STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}`,
      OPENAI_API_KEY: A_KEY,
      MODEL_FALLBACKS: "gpt-4o@https://eu.example/v1",
      BOT_SETTINGS: settings,
    });
    expect(result).toEqual({
      kind: "failed",
      message: `Settings error in ${settings}: models."gpt-4o@https://eu.example/v1".apiKeyVariable: EU_OPENAI_KEY is not set in the environment`,
    });
  });
});
