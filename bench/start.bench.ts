// Start-to-ready time and RSS of the production start (`node dist/main.js`, with start:prod's
// heap cap), median of 5 starts each:
// - console mode: ready = the prompt is shown; idle RSS once the tokenizer was prepared;
// - Slack (HTTP mode) + Discord + the SQLite store, against the test fakes on 127.0.0.1:
//   ready = /healthz answers on PORT; idle RSS; RSS after the first answered Slack mention.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeDiscord } from "../test/support/fake-discord.js";
import { startFakeSlack, type FakeSlack } from "../test/support/fake-slack.js";
import { mentionEvent, postEvent, SIGNING_SECRET } from "../test/support/fake-slack-requests.js";
import { median, printTable } from "./support/stats.js";

const STARTS = 5;
/** Long enough for the tokenizer's background build to finish: idle means nothing left to do. */
const SETTLE_MS = 4_000;
const READY_TIMEOUT_MS = 20_000;
const TARGET_READY_MS = 1_000;
const TARGET_IDLE_MB = 200;
const TARGET_ANSWERED_MB = 250;

/** start:prod's node flags (the heap cap), so the bench starts what production starts. */
function prodNodeFlags(): string[] {
  const script: string = JSON.parse(readFileSync("package.json", "utf8")).scripts["start:prod"] ?? "node dist/main.js";
  return script.split(/\s+/).filter((word) => word.startsWith("--"));
}

function ensureBuilt(): void {
  if (existsSync("dist/main.js")) return;
  console.log("(building dist/ with npm run build first)");
  // Its output goes to stderr: what this bench prints on stdout is its figures (recorded by run.ts).
  spawnSync("npm", ["run", "build"], { stdio: ["ignore", 2, 2] });
  if (!existsSync("dist/main.js")) throw new Error("npm run build did not produce dist/main.js");
}

const rssMb = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("VmRSS:"));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN) / 1024;
};

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function startBot(env: Record<string, string>, cwd: string): { child: ChildProcess; output: () => string; started: number } {
  const started = performance.now();
  const child = spawn(process.execPath, [...prodNodeFlags(), join(process.cwd(), "dist/main.js")], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  return { child, output: () => out, started };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, output: () => string): Promise<void> {
  const deadline = performance.now() + READY_TIMEOUT_MS;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`${what} did not happen within ${READY_TIMEOUT_MS} ms:\n${output()}`);
    await pause(5);
  }
}

async function stopBot(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

async function consoleStart(): Promise<{ readyMs: number; idleMb: number }> {
  const folder = await mkdtemp(join(tmpdir(), "bench-start-"));
  try {
    const bot = startBot({ STORE_URL: `sqlite://${join(folder, "data", "bot.sqlite")}` }, folder);
    await until(() => bot.output().includes("\n> "), "the console prompt", bot.output);
    const readyMs = performance.now() - bot.started;
    await pause(SETTLE_MS);
    const idleMb = rssMb(bot.child.pid!);
    bot.child.stdin!.end("/quit\n");
    await stopBot(bot.child);
    return { readyMs, idleMb };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function healthy(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200;
  } catch {
    return false;
  }
}

/** Discord alone: the ops port opens before the chat library loads. */
async function discordStart(discord: FakeDiscord): Promise<{ readyMs: number; idleMb: number }> {
  const folder = await mkdtemp(join(tmpdir(), "bench-start-"));
  const port = await freePort();
  try {
    const env = {
      STORE_URL: `sqlite://${join(folder, "data", "bot.sqlite")}`,
      OPENAI_API_KEY: "demo",
      LOG_LEVEL: "warn",
      PORT: String(port),
    };
    const bot = startBot(
      { ...env, DISCORD_TOKEN: discord.token, DISCORD_APPLICATION_ID: discord.applicationId, DISCORD_API_URL: discord.apiUrl },
      folder,
    );
    await until(() => healthy(port), "/healthz on PORT", bot.output);
    const readyMs = performance.now() - bot.started;
    await pause(SETTLE_MS);
    const idleMb = rssMb(bot.child.pid!);
    await stopBot(bot.child);
    return { readyMs, idleMb };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

async function chatStart(
  slack: FakeSlack,
  discord: FakeDiscord,
  round: number,
): Promise<{ readyMs: number; idleMb: number; answeredMb: number }> {
  const folder = await mkdtemp(join(tmpdir(), "bench-start-"));
  const port = await freePort();
  try {
    const bot = startBot(
      {
        STORE_URL: `sqlite://${join(folder, "data", "bot.sqlite")}`,
        OPENAI_API_KEY: "demo",
        LOG_LEVEL: "warn",
        PORT: String(port),
        SLACK_BOT_TOKEN: "xoxb-bench-token",
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: slack.apiUrl,
        DISCORD_TOKEN: discord.token,
        DISCORD_APPLICATION_ID: discord.applicationId,
        DISCORD_API_URL: discord.apiUrl,
      },
      folder,
    );
    await until(() => healthy(port), "/healthz on PORT", bot.output);
    const readyMs = performance.now() - bot.started;
    await pause(SETTLE_MS);
    const idleMb = rssMb(bot.child.pid!);
    const ts = `1700000${round}.000100`;
    const posted = slack.waitForCall("chat.postMessage", (call) => JSON.stringify(call).includes("35"), READY_TIMEOUT_MS);
    await postEvent(`http://127.0.0.1:${port}/slack/events`, mentionEvent({ text: "<@U0BOT> what is (3+4)*5", ts }));
    await posted;
    await pause(500);
    const answeredMb = rssMb(bot.child.pid!);
    await stopBot(bot.child);
    return { readyMs, idleMb, answeredMb };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  ensureBuilt();
  const flags = prodNodeFlags().join(" ");
  const consoles = [];
  for (let index = 0; index < STARTS; index++) consoles.push(await consoleStart());
  const slack = await startFakeSlack();
  const discord = await FakeDiscord.start();
  const chats = [];
  const discords = [];
  try {
    for (let index = 0; index < STARTS; index++) chats.push(await chatStart(slack, discord, index));
    for (let index = 0; index < STARTS; index++) discords.push(await discordStart(discord));
  } finally {
    await slack.close();
    await discord.close();
  }
  const met = (value: number, target: number) => (value <= target ? "yes" : "NO");
  console.log(
    `node ${flags} dist/main.js, median of ${STARTS} starts (node ${process.version}); RSS read from /proc after ${SETTLE_MS / 1000} s idle`,
  );
  const consoleReady = median(consoles.map((run) => run.readyMs));
  const consoleIdle = median(consoles.map((run) => run.idleMb));
  const chatReady = median(chats.map((run) => run.readyMs));
  const chatIdle = median(chats.map((run) => run.idleMb));
  const chatAnswered = median(chats.map((run) => run.answeredMb));
  const discordReady = median(discords.map((run) => run.readyMs));
  const discordIdle = median(discords.map((run) => run.idleMb));
  printTable(
    ["process", "start→ready ms", "target", "met", "idle RSS MB", "target", "met", "after 1st answer MB", "target", "met"],
    [
      [
        "console (prompt shown)",
        consoleReady.toFixed(0),
        String(TARGET_READY_MS),
        met(consoleReady, TARGET_READY_MS),
        consoleIdle.toFixed(0),
        String(TARGET_IDLE_MB),
        met(consoleIdle, TARGET_IDLE_MB),
        "-",
        "-",
        "-",
      ],
      [
        "Slack HTTP + Discord + SQLite (PORT listening)",
        chatReady.toFixed(0),
        String(TARGET_READY_MS),
        met(chatReady, TARGET_READY_MS),
        chatIdle.toFixed(0),
        String(TARGET_IDLE_MB),
        met(chatIdle, TARGET_IDLE_MB),
        chatAnswered.toFixed(0),
        String(TARGET_ANSWERED_MB),
        met(chatAnswered, TARGET_ANSWERED_MB),
      ],
      [
        "Discord + SQLite (PORT listening)",
        discordReady.toFixed(0),
        String(TARGET_READY_MS),
        met(discordReady, TARGET_READY_MS),
        discordIdle.toFixed(0),
        String(TARGET_IDLE_MB),
        met(discordIdle, TARGET_IDLE_MB),
        "-",
        "-",
        "-",
      ],
    ],
  );
}
