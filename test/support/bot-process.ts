// A real bot process (Slack in HTTP mode, or Discord; the model behind a fake OpenAI server) as a
// child process, for crash and shutdown tests: kill -9 it, SIGTERM it, start it again on the same store.
import { spawn, type ChildProcess } from "node:child_process";
import { SIGNING_SECRET } from "./fake-slack-requests.js";
import { until } from "./memory-test-kit.js";

export interface BotProcess {
  readonly child: ChildProcess;
  /** http://127.0.0.1:PORT/slack/events once the bot listens. */
  readonly eventsUrl: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  logs(): string;
}

export interface BotOptions {
  /** The fake Slack's Web API; without it, `discord` says where the bot connects. */
  readonly slackApiUrl?: string;
  readonly discord?: { readonly apiUrl: string; readonly token: string; readonly applicationId: string };
  readonly openaiBaseUrl: string;
  readonly storeUrl: string;
  readonly port: number;
  readonly env?: Record<string, string>;
  /** `npm start` (npm → tsx → node) in its own process group, instead of node with tsx's loader. */
  readonly viaNpm?: boolean;
}

export async function startBot(options: BotOptions): Promise<BotProcess> {
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    ...(options.discord
      ? {
          DISCORD_TOKEN: options.discord.token,
          DISCORD_APPLICATION_ID: options.discord.applicationId,
          DISCORD_API_URL: options.discord.apiUrl,
        }
      : { SLACK_BOT_TOKEN: "xoxb-test", SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_API_URL: options.slackApiUrl ?? "" }),
    PORT: String(options.port),
    OPENAI_API_KEY: "sk-test",
    OPENAI_BASE_URL: options.openaiBaseUrl,
    OPENAI_MAX_RETRIES: "0",
    STORE_URL: options.storeUrl,
    MEMORY_EXTRACT_FACTS: "false",
    LOG_LEVEL: "info",
    ...options.env,
  };
  const child = options.viaNpm
    ? spawn("npm", ["start", "--silent"], { cwd: process.cwd(), env, detached: true, stdio: ["ignore", "pipe", "pipe"] })
    : spawn(process.execPath, ["--import", "tsx", "src/main.ts"], { cwd: process.cwd(), env, stdio: ["ignore", "pipe", "pipe"] });
  let logs = "";
  child.stdout?.on("data", (chunk: Buffer) => (logs += chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => (logs += chunk.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  // A bot that never got ready is not left running after the test.
  const ready = options.discord ? "discord adapter connected" : "Slack is connected";
  await until(() => gone || logs.includes(ready), "the bot to listen", 30_000, 50).catch((error: unknown) => {
    child.kill("SIGKILL");
    throw error;
  });
  if (gone) throw new Error(`the bot exited at start:\n${logs}`);
  return { child, eventsUrl: `http://127.0.0.1:${options.port}/slack/events`, exited, logs: () => logs };
}

/** A port free right now on 127.0.0.1 (the bot must listen on a known one across restarts). */
export async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
