// The settings file: JSON or YAML, checked field by field with one line per problem, and
// re-read when it changes; a broken edit keeps the settings in force.
import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { say, ScriptedModel } from "../src/agent/model-scripted.js";
import { runSettingsFor } from "../src/governance/channel-settings.js";
import { parseSettingsText, readSettingsFile, settingsPath } from "../src/governance/settings-file.js";
import type { SettingsCheck } from "../src/governance/settings-schema.js";
import { openSettings, type SettingsSource } from "../src/governance/settings-source.js";
import { capturingLogger, temporaryFolder } from "./support/memory-test-kit.js";
import { governedService, settingsOf, slackOrigin } from "./support/governance-kit.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
beforeAll(async () => {
  folder = await temporaryFolder();
});
afterAll(async () => folder.remove());

describe("reading the file", () => {
  it("reads JSON and YAML alike", async () => {
    const json = join(folder.path, "a.json");
    const yaml = join(folder.path, "a.yaml");
    await writeFile(json, JSON.stringify({ access: { dms: false }, channels: { C1: { memory: "off" } } }));
    await writeFile(yaml, 'access:\n  dms: false\nchannels:\n  C1:\n    memory: "off"\n');
    const fromJson = await readSettingsFile(json);
    expect(fromJson).toEqual(await readSettingsFile(yaml));
    expect(fromJson).toMatchObject({
      kind: "ok",
      settings: { access: { dms: false, allow: { users: [] } }, channels: { C1: { memory: "off" } } },
    });
  });

  it("the shipped example is valid", async () => {
    expect(await readSettingsFile(join(import.meta.dirname, "..", "bot.settings.example.json"))).toMatchObject({ kind: "ok" });
  });

  it("names each problem on its own line", async () => {
    const check = await parseSettingsText(
      JSON.stringify({
        access: { dms: "no", admins: { slack: [""] } },
        limits: { user: { runsPerMinute: 2.5 } },
        channels: { C1: { memory: "maybe", colour: "red" } },
        extra: 1,
      }),
      "bot.settings.json",
    );
    expect(check.kind === "invalid" && [...check.problems].sort()).toEqual([
      "access.admins.slack.0: expects ids, not empty strings",
      "access.dms: expects true or false",
      'channels.C1.memory: expects "on" or "off"',
      'channels.C1: unknown field "colour"',
      "limits.user.runsPerMinute: expects a whole number",
      'unknown field "extra"',
    ]);
  });

  it("says when the text is not JSON or YAML at all, or not an object", async () => {
    expect(await parseSettingsText("{ nope", "x.json")).toMatchObject({
      kind: "invalid",
      problems: [expect.stringMatching(/^not valid JSON: /)],
    });
    expect(await parseSettingsText("a: [", "x.yml")).toMatchObject({
      kind: "invalid",
      problems: [expect.stringMatching(/^not valid YAML: /)],
    });
    expect(await parseSettingsText("[1]", "x.json")).toEqual({
      kind: "invalid",
      problems: ["expects an object with access, limits and channels"],
    });
  });

  it("uses BOT_SETTINGS, else bot.settings.json only when it exists", async () => {
    expect(settingsPath("conf/x.yaml", "/srv/bot")).toBe("/srv/bot/conf/x.yaml");
    expect(settingsPath(undefined, folder.path)).toBeUndefined();
    await writeFile(join(folder.path, "bot.settings.json"), "{}");
    expect(settingsPath(undefined, folder.path)).toBe(join(folder.path, "bot.settings.json"));
  });

  it("combines tool lists strictly: every allow list must allow, any deny wins", () => {
    const settings = settingsOf({
      channels: { default: { tools: { allow: ["read_*", "calc*"], deny: ["read_secret"] } }, C1: { tools: { allow: ["read_*"] } } },
    });
    const here = runSettingsFor(settings, { channel: "C1" });
    expect(["read_channel", "calculator", "read_secret"].map(here.toolAllowed)).toEqual([true, false, false]);
    expect(runSettingsFor(settings, { channel: "C2" }).toolAllowed("calculator")).toBe(true);
  });
});

describe("watching the file", () => {
  async function opened(
    path: string,
  ): Promise<{ source: SettingsSource; reloads: SettingsCheck[]; next: () => Promise<SettingsCheck>; warnings: () => unknown[] }> {
    const { logger, warnings } = capturingLogger();
    const result = await openSettings(path, logger);
    if (result.kind !== "ok") throw new Error(result.problems.join("; "));
    const reloads: SettingsCheck[] = [];
    let waiting: ((check: SettingsCheck) => void) | undefined;
    result.source.onReload((check) => {
      reloads.push(check);
      waiting?.(check);
    });
    return { source: result.source, reloads, warnings, next: () => new Promise((resolve) => (waiting = resolve)) };
  }

  it("a bad file stops the start with its problems", async () => {
    const path = join(folder.path, "bad.json");
    await writeFile(path, JSON.stringify({ limits: { user: { tokensPerDay: -1 } } }));
    expect(await openSettings(path, capturingLogger().logger)).toEqual({
      kind: "invalid",
      path,
      problems: ["limits.user.tokensPerDay: expects a number above 0"],
    });
  });

  it("an edit changes the next run without a restart; a broken edit keeps the previous settings", async () => {
    const path = join(folder.path, "live.json");
    await writeFile(path, JSON.stringify({ channels: { C1: { systemPrompt: "You are Ada." } } }));
    const { source, next, warnings } = await opened(path);
    const model = new ScriptedModel([], { whenExhausted: say("ok") });
    const harness = await governedService({ model, storeUrl: `sqlite://${folder.path}/live.sqlite`, settings: source });
    try {
      await harness.service.ask({ origin: slackOrigin("U1"), text: "hi" }, harness.sink);
      expect(model.requests[0]!.messages[0]!.content).toContain("You are Ada.");

      let reloaded = next();
      // Saved the way editors do: a new file renamed over the old one.
      await writeFile(
        `${path}.tmp`,
        JSON.stringify({ channels: { C1: { systemPrompt: "You are Grace." } }, access: { block: { users: ["U2"] } } }),
      );
      await rename(`${path}.tmp`, path);
      expect((await reloaded).kind).toBe("ok");
      await harness.service.ask({ origin: slackOrigin("U1"), text: "hi" }, harness.sink);
      expect(model.requests[1]!.messages[0]!.content).toContain("You are Grace.");
      expect((await harness.policy.admit(slackOrigin("U2"))).kind).toBe("refused");

      reloaded = next();
      await writeFile(path, '{ "channels": { "C1": { "systemPrompt": 42 } } }');
      expect(await reloaded).toEqual({
        kind: "invalid",
        problems: ["channels.C1.systemPrompt: Invalid input: expected string, received number"],
      });
      expect(warnings()).toEqual([expect.objectContaining({ msg: expect.stringContaining("keeping the previous settings") })]);
      await harness.service.ask({ origin: slackOrigin("U1"), text: "hi" }, harness.sink);
      expect(model.requests[2]!.messages[0]!.content).toContain("You are Grace.");
    } finally {
      source.close();
      await harness.close();
    }
  });
});
