// What an operator must see, seen in the console (which logs only errors): a settings edit
// that was rejected and a TOOL_POLICY rule that matches no tool are one line each, after the
// banner, in the app as it is wired (startApp).
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { until } from "../../support/until.js";
import { useAppHarness } from "../../support/app-harness.js";

const apps = useAppHarness();

async function consoleApp(env: Record<string, string>): Promise<() => string> {
  return (await apps.startConsole(env)).shown;
}

describe("operator notices in the console", () => {
  it("a TOOL_POLICY rule that matches no tool, after the banner", async () => {
    const shown = await consoleApp({ TOOL_POLICY: "calculater=deny,current_time=approve" });
    const line = "! the tool policy (TOOL_POLICY) rule calculater=deny matches no tool; /tools lists the tools' names";
    await until(() => shown().includes(line), "the notice");
    expect(shown().indexOf(line)).toBeGreaterThan(shown().indexOf("Type a question"));
    expect(shown()).not.toContain("rule current_time=approve");
  });

  it("a channel's tools entry in the settings file that matches no tool, at start and after an edit", async () => {
    const path = join(apps.folder, "bot.settings.json");
    await writeFile(path, JSON.stringify({ channels: { default: { tools: { deny: ["calculater", "current_*"] } } } }));
    const shown = await consoleApp({ BOT_SETTINGS: path });
    const line = `! the settings file's channels.default.tools.deny: "calculater" matches no tool; /tools lists the tools' names`;
    await until(() => shown().includes(line), "the notice at start");
    expect(shown()).not.toContain('"current_*" matches no tool');
    await writeFile(path, JSON.stringify({ channels: { C1: { tools: { allow: ["calculator", "clock"] } } } }));
    await until(
      () => shown().includes(`! the settings file's channels.C1.tools.allow: "clock" matches no tool`),
      "the notice after the edit",
    );
  });

  it("a settings edit that was rejected: the previous settings stay, and the console says why", async () => {
    const path = join(apps.folder, "bot.settings.json");
    await writeFile(path, JSON.stringify({ channels: { default: { maxSteps: 4 } } }));
    const shown = await consoleApp({ BOT_SETTINGS: path });
    await until(() => shown().includes("> "), "the prompt");
    await writeFile(path, JSON.stringify({ channels: { default: { maxSteps: "many" } } }));
    await until(() => shown().includes("! the settings file has problems; keeping the previous settings: "), "the notice");
    expect(shown()).toMatch(/^! the settings file has problems; keeping the previous settings: .*maxSteps.*$/m);
  });
});
