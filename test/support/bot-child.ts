// A real bot process (Slack in HTTP mode, or Discord; the model behind a fake OpenAI server) as a
// child process, for crash and shutdown tests: kill -9 it, SIGTERM it, start it again on the same store.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { SIGNING_SECRET } from "./fake-slack-requests.js";
import { CLIENT_ID, CLIENT_SECRET } from "./fake-slack-oauth.js";
import { until } from "./until.js";

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
  /** Installed in workspaces through its install pages (SLACK_CLIENT_ID, coming back to `publicUrl`) instead of SLACK_BOT_TOKEN. */
  readonly slackInstalls?: { readonly publicUrl: string };
  readonly discord?: { readonly apiUrl: string; readonly token: string; readonly applicationId: string };
  readonly openaiBaseUrl: string;
  readonly storeUrl: string;
  readonly port: number;
  readonly env?: Record<string, string>;
  /** `npm start` (npm → tsx → node) in its own process group, instead of node with tsx's loader. */
  readonly viaNpm?: boolean;
  /** More node options before src/main.ts (not with viaNpm), e.g. a preload such as test/support/slow-imports.mjs. */
  readonly nodeArgs?: readonly string[];
  /** `npm run start:prod` (the deploy command) in this package folder (see prod-build.ts), in its own process group. */
  readonly prodPackage?: string;
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
      : {
          ...(options.slackInstalls
            ? { SLACK_CLIENT_ID: CLIENT_ID, SLACK_CLIENT_SECRET: CLIENT_SECRET, PUBLIC_URL: options.slackInstalls.publicUrl }
            : { SLACK_BOT_TOKEN: "xoxb-test" }),
          SLACK_SIGNING_SECRET: SIGNING_SECRET,
          SLACK_API_URL: options.slackApiUrl ?? "",
        }),
    PORT: String(options.port),
    OPENAI_API_KEY: "sk-test",
    OPENAI_BASE_URL: options.openaiBaseUrl,
    OPENAI_MAX_RETRIES: "0",
    STORE_URL: options.storeUrl,
    MEMORY_EXTRACT_FACTS: "false",
    // One message is one question here; a burst test sets a window of its own.
    MESSAGE_DEBOUNCE_MS: "0",
    LOG_LEVEL: "info",
    ...options.env,
  };
  const child = options.prodPackage
    ? spawn("npm", ["run", "start:prod", "--silent"], { cwd: options.prodPackage, env, detached: true, stdio: ["ignore", "pipe", "pipe"] })
    : options.viaNpm
      ? spawn("npm", ["start", "--silent"], { cwd: process.cwd(), env, detached: true, stdio: ["ignore", "pipe", "pipe"] })
      : spawn(process.execPath, ["--import", "tsx", ...(options.nodeArgs ?? []), "src/main.ts"], {
          cwd: process.cwd(),
          env,
          stdio: ["ignore", "pipe", "pipe"],
        });
  let logs = "";
  child.stdout?.on("data", (chunk: Buffer) => (logs += chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => (logs += chunk.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  // A bot that never got ready is not left running after the test.
  await until(() => gone || logs.includes('"msg":"started"'), "the bot to listen", 30_000, 50).catch((error: unknown) => {
    if (options.viaNpm || options.prodPackage) killGroup(child);
    else child.kill("SIGKILL");
    // What it logged before it was given up on, for whoever reads the failure (the soak keeps it).
    throw Object.assign(error instanceof Error ? error : new Error(String(error)), { logs });
  });
  if (gone) throw Object.assign(new Error(`the bot exited at start:\n${logs}`), { logs });
  return { child, eventsUrl: `http://127.0.0.1:${options.port}/slack/events`, exited, logs: () => logs };
}

/** SIGKILL to the process group of a child started detached (npm and whatever it started); a group already gone is fine. */
export function killGroup(child: ChildProcess): void {
  try {
    process.kill(-(child.pid as number), "SIGKILL");
  } catch {
    // The group is gone already.
  }
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid of the bot process that owns an SQLite store (its `.owner` file), once it has claimed it. */
export function storeOwnerPid(databasePath: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(`${databasePath}.owner`, "utf8")) as { pid?: number }).pid;
  } catch {
    return undefined;
  }
}

/** A process's parent, from /proc (Linux). */
export function parentPid(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) is in parentheses and may hold spaces; the parent pid is the second field after it.
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}
