// The settings file at start: a bad one stops the start with one line per problem; a good one
// governs the console like any surface.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAppHarness } from "../support/app-harness.js";

const apps = useAppHarness();

describe("startApp with BOT_SETTINGS", () => {
  it("a bad settings file stops the start with one line per problem", async () => {
    const path = join(apps.folder, "bot.settings.yaml");
    await writeFile(path, "access:\n  dms: perhaps\nlimits:\n  user:\n    runsPerMinute: 0\n");
    const result = await apps.start({ STORE_URL: apps.storeUrl(), BOT_SETTINGS: path });
    expect(result).toEqual({
      kind: "failed",
      message: [
        `Settings error in ${path}: access.dms: expects true or false`,
        `Settings error in ${path}: limits.user.runsPerMinute: expects a number above 0`,
      ].join("\n"),
    });
  });

  it("an empty settings file stops the start with one line: {} is how to say no settings", async () => {
    const path = join(apps.folder, "bot.settings.yaml");
    await writeFile(path, "");
    const result = await apps.start({ STORE_URL: apps.storeUrl(), BOT_SETTINGS: path });
    expect(result).toEqual({ kind: "failed", message: `Settings error in ${path}: the file is empty; write {} in it for no settings` });
  });

  it("a missing settings file named by BOT_SETTINGS stops the start", async () => {
    const result = await apps.start({
      STORE_URL: apps.storeUrl(),
      BOT_SETTINGS: join(apps.folder, "nope.json"),
    });
    expect(result).toMatchObject({
      kind: "failed",
      message: expect.stringMatching(/^Settings error in .*nope\.json: cannot read the file: ENOENT/),
    });
  });

  it("a blocked console user is told so, and nothing runs", async () => {
    const path = join(apps.folder, "bot.settings.json");
    await writeFile(path, JSON.stringify({ access: { block: { users: ["console"] } } }));
    const { type, shown, waitFor } = await apps.startConsole({ BOT_SETTINGS: path });
    type("what is 12*12");
    await waitFor("not allowed to use this bot", "the refusal");
    expect(shown()).not.toContain("144");
  });

  it("the console shows /settings, and /audit only to a console admin", async () => {
    const path = join(apps.folder, "bot.settings.json");
    await writeFile(path, JSON.stringify({ channels: { default: { maxSteps: 4 } } }));
    const { type, shown, waitFor } = await apps.startConsole({ BOT_SETTINGS: path });
    type("/settings");
    await waitFor("steps per run: 4", "the settings");
    expect(shown()).toContain("• model: the offline demo model (arithmetic and time only; set OPENAI_API_KEY for a real one)");
    type("/audit");
    await waitFor("Only the bot's admins can see the audit log.", "the audit refusal");
    expect(shown()).toContain(`An admin adds your id "console" to access.admins.console in ${path}.`);
  });

  it("the console's /settings names the default steps as a number", async () => {
    const path = join(apps.folder, "bot.settings.json");
    await writeFile(path, "{}");
    const { type, waitFor } = await apps.startConsole({ BOT_SETTINGS: path, AGENT_MAX_STEPS: "7" });
    type("/settings");
    await waitFor("steps per run: 7 (the default, AGENT_MAX_STEPS)", "the settings");
  });
});
