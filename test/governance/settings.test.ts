// The settings file: JSON or YAML, checked field by field with one line per problem, and
// re-read when it changes; a broken edit keeps the settings in force.
import { open, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { say, ScriptedModel } from "../support/model-scripted.js";
import { runSettingsFor } from "../../src/governance/channel-settings.js";
import { parseSettingsText, readSettingsFile, settingsPath } from "../../src/governance/settings-file.js";
import type { Settings, SettingsCheck } from "../../src/governance/settings-schema.js";
import { openSettings, type SettingsSource } from "../../src/governance/settings-source.js";
import { capturingLogger } from "../support/capturing-logger.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { until } from "../support/until.js";
import { governedService, settingsOf, slackOrigin } from "../support/governance-harness.js";
import { repoRoot } from "../support/repo-paths.js";

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
    expect(await readSettingsFile(join(repoRoot, "bot.settings.example.json"))).toMatchObject({ kind: "ok" });
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

  it("reads YAML whatever the case of its extension", async () => {
    for (const name of ["x.YML", "x.Yaml"])
      expect(await parseSettingsText("access:\n  dms: false\n", name)).toMatchObject({ kind: "ok", settings: { access: { dms: false } } });
  });

  it('an empty file, YAML of comments alone, or null is not "no settings": {} is', async () => {
    const empty = { kind: "invalid", problems: ["the file is empty; write {} in it for no settings"] };
    for (const [text, name] of [
      ["", "x.json"],
      [" \n", "x.yaml"],
      ["# nothing yet\n", "x.yaml"],
      ["null", "x.json"],
      ["~", "x.yml"],
    ] as const)
      expect(await parseSettingsText(text, name), `${JSON.stringify(text)} in ${name}`).toEqual(empty);
    expect(await parseSettingsText("{}", "x.yaml")).toMatchObject({ kind: "ok" });
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

  it("an empty file stops the start with one line saying to write {}", async () => {
    const path = join(folder.path, "empty.yaml");
    await writeFile(path, "");
    expect(await openSettings(path, capturingLogger().logger)).toEqual({
      kind: "invalid",
      path,
      problems: ["the file is empty; write {} in it for no settings"],
    });
  });

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

describe("settings never fail open while an editor saves", () => {
  const blocked = (prompt: string) =>
    `access:\n  block:\n    users: [U2]\nlimits:\n  user:\n    runsPerMinute: 5\nchannels:\n  C1:\n    systemPrompt: ${prompt}\n`;

  for (const name of ["editors.yaml", "editors.json"]) {
    it(`truncate + write, a partial write, and a rename over keep a settings file in force (${name})`, async () => {
      const path = join(folder.path, name);
      const text = async (prompt: string) =>
        name.endsWith(".json") ? JSON.stringify((await import("yaml")).parse(blocked(prompt)), null, 2) : blocked(prompt);
      await writeFile(path, await text("one"));
      const { logger, warnings } = capturingLogger();
      const opened = await openSettings(path, logger);
      if (opened.kind !== "ok") throw new Error(opened.problems.join("; "));
      const { source } = opened;
      // Every state the settings pass through, sampled as often as the event loop allows and at every re-read.
      const seen: Settings[] = [];
      const sampler = setInterval(() => seen.push(source.current()), 1);
      const reloads: SettingsCheck[] = [];
      source.onReload((check) => {
        reloads.push(check);
        seen.push(source.current());
      });
      const reloaded = (count: number) => until(() => reloads.length >= count, `re-read ${count}`).then(() => reloads[count - 1]!);
      const prompt = () => source.current().channels.C1?.systemPrompt;
      try {
        // An editor that truncates the file, then writes it.
        let handle = await open(path, "w");
        expect((await reloaded(1)).kind).toBe("invalid");
        expect(prompt()).toBe("one");
        await handle.write(await text("two"));
        await handle.close();
        expect(await reloaded(2)).toMatchObject({ kind: "ok" });
        expect(prompt()).toBe("two");

        // A write that stops halfway for a while, then finishes.
        const full = await text("three");
        handle = await open(path, "w");
        await handle.write(full.slice(0, Math.floor(full.length / 2)));
        const half = await reloaded(3);
        expect(half.kind).toBe("invalid");
        expect(prompt()).toBe("two");
        await handle.write(full.slice(Math.floor(full.length / 2)));
        await handle.close();
        expect(await reloaded(4)).toMatchObject({ kind: "ok" });
        expect(prompt()).toBe("three");

        // A new file renamed over the old one.
        await writeFile(`${path}.tmp`, await text("four"));
        await rename(`${path}.tmp`, path);
        expect(await reloaded(5)).toMatchObject({ kind: "ok" });
        expect(prompt()).toBe("four");
      } finally {
        clearInterval(sampler);
        source.close();
      }
      expect(seen.length).toBeGreaterThan(5);
      for (const settings of seen) {
        expect(settings.access.block.users).toEqual(["U2"]);
        expect(settings.limits.user.runsPerMinute).toBe(5);
      }
      expect(warnings().map((line) => line.msg)).toEqual([
        expect.stringMatching(/keeping the previous settings: the file is empty; write \{\} in it for no settings$/),
        expect.stringContaining("keeping the previous settings"),
      ]);
    });
  }

  it("re-reads one at a time, so an older read is never applied after a newer one", async () => {
    const path = join(folder.path, "overlap.json");
    const withPrompt = (prompt: string) => JSON.stringify({ channels: { C1: { systemPrompt: prompt } } });
    await writeFile(path, withPrompt("start"));
    let reads = 0;
    let releaseFirst: () => void = () => undefined;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    const { logger, lines } = capturingLogger();
    // The first re-read reads the file at once and answers only when released: a slow disk, a busy loop.
    const read = async (file: string) => {
      const check = await readSettingsFile(file);
      reads += 1;
      if (reads === 2) await firstHeld;
      return check;
    };
    const opened = await openSettings(path, logger, { read });
    if (opened.kind !== "ok") throw new Error(opened.problems.join("; "));
    const { source } = opened;
    const applied: Array<string | undefined> = [];
    source.onReload(() => applied.push(source.current().channels.C1?.systemPrompt));
    try {
      await writeFile(`${path}.tmp`, withPrompt("older"));
      await rename(`${path}.tmp`, path);
      await until(() => reads === 2, "the first re-read");
      await writeFile(`${path}.tmp`, withPrompt("newer"));
      await rename(`${path}.tmp`, path);
      // The second change is seen while the first re-read is held (before this change, it was read at once).
      await until(
        () => reads === 3 || lines.some((line) => String(line.msg).startsWith("the settings file changed during a re-read")),
        "the second change",
      );
      releaseFirst();
      await until(() => applied.length === 2, "two re-reads applied");
      expect(applied).toEqual(["older", "newer"]);
      expect(source.current().channels.C1?.systemPrompt).toBe("newer");
    } finally {
      source.close();
    }
  });
});
