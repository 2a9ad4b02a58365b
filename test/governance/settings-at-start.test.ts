// The settings file at start: a bad one stops the start with one line per problem; a good one
// governs the console like any surface.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../../src/app.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { until } from "../support/until.js";

let folder: { path: string; remove: () => Promise<void> };
let app: RunningApp | undefined;
beforeEach(async () => {
  folder = await temporaryFolder();
});
afterEach(async () => {
  await app?.stop();
  app = undefined;
  await folder.remove();
});

describe("startApp with BOT_SETTINGS", () => {
  it("a bad settings file stops the start with one line per problem", async () => {
    const path = join(folder.path, "bot.settings.yaml");
    await writeFile(path, "access:\n  dms: perhaps\nlimits:\n  user:\n    runsPerMinute: 0\n");
    const result = await startApp({ STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}`, BOT_SETTINGS: path });
    expect(result).toEqual({
      kind: "failed",
      message: [
        `Settings error in ${path}: access.dms: expects true or false`,
        `Settings error in ${path}: limits.user.runsPerMinute: expects a number above 0`,
      ].join("\n"),
    });
  });

  it("an empty settings file stops the start with one line: {} is how to say no settings", async () => {
    const path = join(folder.path, "bot.settings.yaml");
    await writeFile(path, "");
    const result = await startApp({ STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}`, BOT_SETTINGS: path });
    expect(result).toEqual({ kind: "failed", message: `Settings error in ${path}: the file is empty; write {} in it for no settings` });
  });

  it("a missing settings file named by BOT_SETTINGS stops the start", async () => {
    const result = await startApp({
      STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}`,
      BOT_SETTINGS: join(folder.path, "nope.json"),
    });
    expect(result).toMatchObject({
      kind: "failed",
      message: expect.stringMatching(/^Settings error in .*nope\.json: cannot read the file: ENOENT/),
    });
  });

  it("a blocked console user is told so, and nothing runs", async () => {
    const path = join(folder.path, "bot.settings.json");
    await writeFile(path, JSON.stringify({ access: { block: { users: ["console"] } } }));
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = "";
    output.on("data", (chunk: Buffer) => (shown += chunk.toString("utf8")));
    const result = await startApp(
      { STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}`, BOT_SETTINGS: path },
      { input, output, username: "ada" },
    );
    if (result.kind !== "started") throw new Error(result.message);
    app = result.app;
    input.write("what is 12*12\n");
    await until(() => shown.includes("not allowed to use this bot"), "the refusal");
    expect(shown).not.toContain("144");
  });

  it("the console shows /settings, and /audit only to a console admin", async () => {
    const path = join(folder.path, "bot.settings.json");
    await writeFile(path, JSON.stringify({ channels: { default: { maxSteps: 4 } } }));
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = "";
    output.on("data", (chunk: Buffer) => (shown += chunk.toString("utf8")));
    const result = await startApp(
      { STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}`, BOT_SETTINGS: path },
      { input, output, username: "ada" },
    );
    if (result.kind !== "started") throw new Error(result.message);
    app = result.app;
    input.write("/settings\n");
    await until(() => shown.includes("steps per run: 4"), "the settings");
    expect(shown).toContain("• model: the offline demo model (arithmetic and time only; set OPENAI_API_KEY for a real one)");
    input.write("/audit\n");
    await until(() => shown.includes("Only the bot's admins can see the audit log."), "the audit refusal");
    expect(shown).toContain(`An admin adds your id "console" to access.admins.console in ${path}.`);
  });

  it("the console's /settings names the default steps as a number", async () => {
    const path = join(folder.path, "bot.settings.json");
    await writeFile(path, "{}");
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = "";
    output.on("data", (chunk: Buffer) => (shown += chunk.toString("utf8")));
    const result = await startApp(
      { STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}`, BOT_SETTINGS: path, AGENT_MAX_STEPS: "7" },
      { input, output, username: "ada" },
    );
    if (result.kind !== "started") throw new Error(result.message);
    app = result.app;
    input.write("/settings\n");
    await until(() => shown.includes("steps per run: 7 (the default, AGENT_MAX_STEPS)"), "the settings");
  });
});
