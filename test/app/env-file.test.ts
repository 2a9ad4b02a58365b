// `.env` at start: dotenv's values, the environment first, a line dotenv would skip named by its
// number; and every entry point loads it (the bot, discord:register, audit, replay).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { checkEnvText, loadEnvFile } from "../../src/env-file.js";
import { logFormatFrom } from "../../src/logger.js";
import { temporaryFolder } from "../support/temporary-folder.js";

let folder: { path: string; remove: () => Promise<void> };

beforeEach(async () => {
  folder = await temporaryFolder();
});

afterEach(async () => {
  await folder.remove();
});

async function envFile(text: string): Promise<string> {
  const path = join(folder.path, ".env");
  await writeFile(path, text);
  return path;
}

describe("loadEnvFile", () => {
  it("sets the file's values, as dotenv reads quotes, escapes and comments", async () => {
    const path = await envFile(
      [
        "# the model",
        "OPENAI_API_KEY=sk-local-key",
        "OPENAI_MODEL = llama3.1   # a comment after the value",
        "export LOG_LEVEL=debug",
        "SINGLE='kept # as is \\n'",
        'DOUBLE="line one\\nline two"',
        "BACKTICK=`has 'both' \"quotes\"`",
        'MULTI="first',
        "second",
        'third"',
        "EMPTY=",
        "",
        "   # an indented comment",
      ].join("\n"),
    );
    const env: NodeJS.ProcessEnv = {};
    expect(loadEnvFile(env, path)).toEqual({ kind: "loaded" });
    expect(env).toEqual({
      OPENAI_API_KEY: "sk-local-key",
      OPENAI_MODEL: "llama3.1",
      LOG_LEVEL: "debug",
      SINGLE: "kept # as is \\n",
      DOUBLE: "line one\nline two",
      BACKTICK: `has 'both' "quotes"`,
      MULTI: "first\nsecond\nthird",
      EMPTY: "",
    });
  });

  it("leaves every variable the environment already has, even an empty one", async () => {
    const path = await envFile("OPENAI_MODEL=from-file\nOPENAI_BASE_URL=http://file/v1\nPORT=1\n");
    const env: NodeJS.ProcessEnv = { OPENAI_MODEL: "from-env", PORT: "" };
    loadEnvFile(env, path);
    expect(env).toEqual({ OPENAI_MODEL: "from-env", OPENAI_BASE_URL: "http://file/v1", PORT: "" });
  });

  it("is fine without a file", () => {
    const env: NodeJS.ProcessEnv = {};
    expect(loadEnvFile(env, join(folder.path, "none.env"))).toEqual({ kind: "missing" });
    expect(env).toEqual({});
  });

  it("names a malformed line by its number, without quoting it, and sets nothing", async () => {
    const path = await envFile("# tokens\nSLACK_BOT_TOKEN=xoxb-1\n\nOPENAI_API_KEY sk-live-secret\nPORT=3000\n");
    const env: NodeJS.ProcessEnv = {};
    expect(loadEnvFile(env, path)).toEqual({ kind: "invalid", message: "Configuration error: .env line 4: expected NAME=value" });
    expect(env).toEqual({});
  });

  it("says so when the file can't be read", async () => {
    expect(loadEnvFile({}, folder.path)).toEqual({ kind: "invalid", message: "Configuration error: .env cannot be read (EISDIR)" });
  });
});

describe("checkEnvText", () => {
  it("accepts what dotenv reads, including Windows line ends and a colon form", () => {
    expect(checkEnvText("A=1\r\nB: two\r\nexport C=3\r\n  D = 4\n")).toBeUndefined();
  });

  it.each([
    ["NAME value", 1, "expected NAME=value"],
    ["A=1\nB C=2", 2, "expected NAME=value"],
    ["A=1\n=value", 2, "expected NAME=value"],
    ["A=1\n\nB:value", 3, "expected NAME=value"],
    ['A="never closed\nB=2', 1, "the value's opening \" is never closed"],
    ['A="multi\nline"\nbroken line', 3, "expected NAME=value"],
    ["A='it\\'s open", 1, "the value's opening ' is never closed"],
  ])("%j: line %i, %s", (text, line, problem) => {
    expect(checkEnvText(text)).toEqual({ line, problem });
  });
});

/** tsx's loader by path: the script runs in a folder of its own, where "tsx" does not resolve. */
const TSX_LOADER = pathToFileURL(join(process.cwd(), "node_modules/tsx/dist/loader.mjs")).href;

/** Runs one entry point in `cwd` (which holds the .env) with only PATH and HOME from this environment. */
async function runScript(script: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, ["--import", TSX_LOADER, join(process.cwd(), script), ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stdout, stderr };
}

describe("every entry point reads .env", () => {
  it.each([
    ["the bot", "src/main.ts", []],
    ["discord:register", "src/adapters/discord/register-commands.ts", []],
    ["audit", "src/governance/audit-cli.ts", []],
    ["replay", "src/ops/replay/replay-cli.ts", ["--run", "x"]],
  ] as const)(
    "%s stops at a malformed line with its number",
    async (_name, script, args) => {
      await envFile("GOOD=1\nthis is not an assignment\n");
      const { code, stderr } = await runScript(script, args, folder.path);
      expect({ code, stderr }).toEqual({ code: 1, stderr: "Configuration error: .env line 2: expected NAME=value\n" });
    },
    30_000,
  );

  it("the bot takes a bad value from .env, the environment first", async () => {
    await envFile("AGENT_MAX_STEPS=0\nOPENAI_MODEL=from-file\n");
    const fromFile = await runScript("src/main.ts", [], folder.path);
    expect(fromFile.stderr).toBe('Configuration error: AGENT_MAX_STEPS: expects a whole number from 1 to 100 (got "0")\n');
    const fromEnv = await runScript("src/main.ts", [], folder.path, { AGENT_MAX_STEPS: "101" });
    expect(fromEnv.stderr).toBe('Configuration error: AGENT_MAX_STEPS: expects a whole number from 1 to 100 (got "101")\n');
  }, 30_000);

  it("discord:register takes DISCORD_TOKEN from .env", async () => {
    await envFile("DISCORD_TOKEN=from-the-file\n");
    const { code, stderr } = await runScript("src/adapters/discord/register-commands.ts", [], folder.path);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^Configuration error: DISCORD_APPLICATION_ID: /);
  }, 30_000);
});

describe(".env.example", () => {
  /** The example with every `# NAME=value` line made live. */
  async function filledIn(): Promise<string> {
    const text = await readFile(".env.example", "utf8");
    expect(checkEnvText(text)).toBeUndefined();
    return text.replace(/^# ([A-Z][A-Z0-9_]*=)/gm, "$1");
  }

  it("names only variables the bot reads, and filled in as shown it starts a valid configuration", async () => {
    const env: NodeJS.ProcessEnv = {};
    expect(loadEnvFile(env, await envFile(await filledIn()))).toEqual({ kind: "loaded" });
    expect(Object.keys(env)).toEqual(expect.arrayContaining(["OPENAI_API_KEY", "SLACK_BOT_TOKEN", "DISCORD_TOKEN", "LOG_FORMAT"]));
    const config = loadConfig(env);
    expect(config.slack?.mode.kind).toBe("socket");
    expect(config.discord?.applicationId).toBe(env.DISCORD_APPLICATION_ID);
    expect(logFormatFrom(env, false)).toBe("pretty");
    const sources = await Promise.all(
      (await readdir("src", { recursive: true })).filter((file) => file.endsWith(".ts")).map((file) => readFile(join("src", file), "utf8")),
    );
    const read = sources.join("\n");
    for (const name of Object.keys(env)) expect(read, `${name} is read somewhere in src/`).toMatch(new RegExp(`\\b${name}\\b`));
  });
});
