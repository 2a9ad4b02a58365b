// `npm start` as a person meets it: a bad setting stops it with one line, a clean machine gets
// the console with the offline demo model, and SIGTERM stops it cleanly.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { temporaryFolder } from "../support/temporary-folder.js";
import { spawnMain, type MainProcess } from "../support/main-child.js";

let folder: { path: string; remove: () => Promise<void> };
let stores = 0;

const started: MainProcess[] = [];

beforeAll(async () => {
  folder = await temporaryFolder();
  await writeFile(join(folder.path, "a-file"), "not a folder");
});

/** A test that failed early must not leave its process behind. */
afterEach(() => {
  for (const main of started.splice(0)) if (main.child.exitCode === null && main.child.signalCode === null) main.child.kill("SIGKILL");
});

function start(env: Record<string, string>): MainProcess {
  const main = spawnMain(env);
  started.push(main);
  return main;
}

afterAll(async () => {
  await folder.remove();
});

/** A fresh SQLite file per process, so no test sees another's conversation. */
function storeUrl(): string {
  stores += 1;
  return `sqlite://${join(folder.path, `bot-${stores}.sqlite`)}`;
}

describe("a bad setting stops the start with one line and exit code 1", () => {
  it.each([
    [{ AGENT_MAX_STEPS: "abc" }, 'Configuration error: AGENT_MAX_STEPS: expects a whole number from 1 to 100 (got "abc")'],
    [{ AGENT_OSCILLATION_WINDOW: "1" }, 'Configuration error: AGENT_OSCILLATION_WINDOW: expects a whole number from 2 to 50 (got "1")'],
    [
      { SLACK_BOT_TOKEN: "xoxb-1", SLACK_APP_TOKEN: "xapp-1" },
      /^Configuration error: OPENAI_API_KEY: expects the model server's key when Slack or Discord is set up \(OPENAI_API_KEY=demo answers/,
    ],
    [{ STORE_URL: "ftp://x" }, /^Configuration error: STORE_URL: .*\(got "ftp:\/\/x"\)$/],
    [{ OPENAI_BASE_URL: "notaurl" }, /^Configuration error: OPENAI_BASE_URL: expects an http\(s\) URL/],
    [
      { AGENT_CONTEXT_TOKENS: "2048" },
      /^Configuration error: AGENT_CONTEXT_TOKENS: expects a window larger than AGENT_RESERVED_OUTPUT_TOKENS/,
    ],
    [{ SLACK_APP_TOKEN: "xapp-1-abc" }, /^Configuration error: SLACK_BOT_TOKEN: /],
    [
      { STORE_URL: "sqlite://{folder}/a-file/bot.sqlite" },
      /^Cannot start: The store is unavailable: cannot create the folder for .*a-file.*Check STORE_URL\.$/,
    ],
  ])("%o", async (env, expected) => {
    const resolved = Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value.replace("{folder}", folder.path)]));
    const main = start({ STORE_URL: storeUrl(), ...resolved });
    const { code } = await main.exited;
    expect(code).toBe(1);
    const lines = main
      .stderr()
      .split("\n")
      .filter((line) => line !== "");
    expect(lines).toHaveLength(1);
    if (typeof expected === "string") expect(lines[0]).toBe(expected);
    else expect(lines[0]).toMatch(expected);
    expect(main.stdout()).toBe("");
  });

  it("never shows a secret it was given", async () => {
    const main = start({ STORE_URL: storeUrl(), APPROVAL_SECRET: "short-secret" });
    expect((await main.exited).code).toBe(1);
    expect(main.stderr()).toMatch(/^Configuration error: APPROVAL_SECRET: expects at least 16 characters \(got "<hidden>"\)\n$/);
  });
});

describe("console mode on a clean machine", () => {
  it("announces the offline demo model, answers through the tools, and /quit exits 0", async () => {
    const main = start({ STORE_URL: storeUrl() });
    main.child.stdin.write("what is 2+2\n/quit\n");
    main.child.stdin.end();
    const { code } = await main.exited;
    expect(code).toBe(0);
    expect(main.stdout()).toContain("OFFLINE DEMO");
    expect(main.stdout()).toMatch(/step 1: calculator\(\{"expression":"2\+2"\}\) → 4/);
    expect(main.stdout()).toContain("2+2 = 4");
    expect(main.stdout()).toMatch(/Bye\.\n$/);
    expect(main.stderr()).toBe("");
  });

  it.each(["SIGTERM", "SIGINT"] as const)("%s while idle stops it with exit code 0", async (signal) => {
    const main = start({ STORE_URL: storeUrl() });
    await main.waitForOutput("> ");
    main.child.kill(signal);
    expect(await main.exited).toEqual({ code: 0, signal: null });
    expect(main.stderr()).toBe("");
  });
});
