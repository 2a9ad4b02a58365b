// The settings file's per-workspace sections (`workspaces`), over the global ones as the default:
// a workspace's admins, lists, `dms`, limits and channel settings are its own; limits count per
// workspace (a person's use in one never spends their allowance in another); a settings file of an
// earlier version (no `workspaces`) loads and reads the same everywhere; the audit command of one
// workspace lists its own entries. Through createRunPolicy, createAuthority and the governance's
// commands, as the runner and the chat commands ask them.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import type { TaskOrigin } from "../../src/contracts/types.js";
import { createAuditLog } from "../../src/governance/audit-log.js";
import { createAuthority } from "../../src/governance/authority.js";
import { createGovernance } from "../../src/governance/governance.js";
import { createRunPolicy, type RunPolicy } from "../../src/governance/run-policy.js";
import { checkSettings } from "../../src/governance/settings-schema.js";
import { fixedSettings } from "../../src/governance/settings-source.js";
import { settingsIn } from "../../src/governance/workspace-settings.js";
import { silentLogger } from "../../src/logger.js";
import { settingsOf } from "../support/governance-harness.js";
import { mapStore } from "../support/map-store.js";
import { fixturePath } from "../support/repo-paths.js";

const NOON = Date.UTC(2026, 11, 1, 12);

/** A Discord member (one user id in every server) asking in a channel of `guild`. */
function inGuild(guild: string, user = "300", channel = `${guild}-general`): TaskOrigin {
  return {
    surface: "discord",
    conversationKey: `discord:${guild}:${channel}`,
    requester: { id: user },
    scope: { channel, dm: false, workspace: guild, roles: [] },
    place: { guild, channel },
  };
}

function policyOver(settings: unknown): RunPolicy {
  const store = mapStore();
  return createRunPolicy({
    settings: fixedSettings(settingsOf(settings)),
    store,
    audit: createAuditLog(store, () => NOON),
    logger: silentLogger,
    clock: () => NOON,
  });
}

const SETTINGS = {
  access: { admins: { discord: ["100"] }, block: { users: ["666"], roles: [], channels: [] } },
  limits: { user: { runsPerMinute: 2 } },
  channels: { default: { systemPrompt: "Global persona." }, shared: { maxSteps: 5 } },
  workspaces: {
    G1: {
      access: { admins: ["300"], block: { users: [] } },
      limits: { user: { runsPerMinute: 1 } },
      channels: { default: { systemPrompt: "G1's persona." }, "G1-quiet": { memory: "off" } },
    },
  },
};

describe("a settings file with per-workspace sections", () => {
  it("gives each workspace its own admins, lists and channel settings, and the global ones elsewhere", () => {
    const authority = createAuthority({ approvers: {}, settings: fixedSettings(settingsOf(SETTINGS)) });
    const actor = (workspace: string, id: string) => ({ surface: "discord" as const, workspace, id, roles: [] });
    // 300 administers G1 only; the global admin 100 administers the others, not G1 (it names its own).
    expect(authority.may("audit", actor("G1", "300"))).toBe(true);
    expect(authority.may("audit", actor("G2", "300"))).toBe(false);
    expect(authority.may("usage", actor("G2", "100"))).toBe(true);
    expect(authority.may("usage", actor("G1", "100"))).toBe(false);

    const policy = policyOver(SETTINGS);
    expect(policy.exempt(inGuild("G1", "300"))).toBe(true);
    expect(policy.exempt(inGuild("G2", "300"))).toBe(false);
    expect(policy.runSettings(inGuild("G1")).systemPrompt).toBe("G1's persona.");
    expect(policy.runSettings(inGuild("G1", "300", "G1-quiet"))).toMatchObject({ systemPrompt: "G1's persona.", memory: false });
    expect(policy.runSettings(inGuild("G2"))).toMatchObject({ systemPrompt: "Global persona.", memory: true });
    // A global channel entry still applies in a workspace that has no entry of that id.
    expect(policy.runSettings(inGuild("G1", "300", "shared")).maxSteps).toBe(5);
  });

  it("refuses and admits by the workspace's own lists", async () => {
    const policy = policyOver(SETTINGS);
    expect(await policy.admit(inGuild("G1", "666"))).toEqual({ kind: "admitted" });
    expect(await policy.admit(inGuild("G2", "666"))).toMatchObject({
      kind: "refused",
      refusal: { kind: "access", reason: "blocked_user" },
    });
  });

  it("counts a person's runs per workspace, each against that workspace's limit", async () => {
    const policy = policyOver(SETTINGS);
    const inG1 = inGuild("G1", "400");
    const inG2 = inGuild("G2", "400");
    expect(await policy.admit(inG1)).toEqual({ kind: "admitted" });
    expect(await policy.admit(inG1)).toMatchObject({ kind: "refused", refusal: { limit: "runs", max: 1 } });
    // Spent in G1, untouched in G2 (where the global limit of 2 applies).
    expect(await policy.allowances(inG2)).toEqual([expect.objectContaining({ scope: "user", limit: "runs", max: 2, left: 2 })]);
    expect(await policy.admit(inG2)).toEqual({ kind: "admitted" });
    expect(await policy.admit(inG2)).toEqual({ kind: "admitted" });
    expect(await policy.admit(inG2)).toMatchObject({ kind: "refused", refusal: { limit: "runs", max: 2 } });
  });

  it("takes the workspace's own admins as the platform names them only where the file names none", () => {
    const named = (origin: TaskOrigin): TaskOrigin => ({ ...origin, scope: { ...origin.scope!, workspaceAdmin: true } });
    expect(policyOver({}).exempt(named(inGuild("G3", "500")))).toBe(true);
    expect(policyOver({}).exempt(inGuild("G3", "500"))).toBe(false);
    // The file names admins of the surface (globally, or for the workspace): theirs alone.
    expect(policyOver(SETTINGS).exempt(named(inGuild("G3", "500")))).toBe(false);
    expect(policyOver(SETTINGS).exempt(named(inGuild("G1", "500")))).toBe(false);
    const authority = createAuthority({ approvers: {}, settings: fixedSettings(settingsOf({})) });
    expect(authority.may("usage", { surface: "discord", workspace: "G3", id: "500", roles: [], workspaceAdmin: true })).toBe(true);
    expect(authority.may("usage", { surface: "discord", workspace: "G3", id: "500", roles: [] })).toBe(false);
  });

  it("says which section and field is wrong", () => {
    const check = checkSettings({ workspaces: { G1: { access: { admins: [""], owners: [] }, limits: { user: { runsPerMinute: 0 } } } } });
    expect(check).toEqual({
      kind: "invalid",
      problems: expect.arrayContaining([
        'workspaces.G1.access: unknown field "owners"',
        "workspaces.G1.access.admins.0: expects ids, not empty strings",
        "workspaces.G1.limits.user.runsPerMinute: expects a number above 0",
      ]),
    });
  });
});

describe("a settings file of an earlier version (no workspaces)", () => {
  it("loads, and every workspace reads the global settings", async () => {
    const raw = JSON.parse(await readFile(fixturePath("main-2026-12", "bot.settings.json"), "utf8"));
    const check = checkSettings(raw);
    if (check.kind !== "ok") throw new Error(check.problems.join("; "));
    expect(check.settings.workspaces).toEqual({});
    expect(settingsIn(check.settings, "T0ANY")).toBe(check.settings);
    expect(settingsIn(check.settings, undefined)).toBe(check.settings);
  });
});

describe("the audit command of one workspace", () => {
  it("lists that workspace's entries alone; asked with no workspace, every entry", async () => {
    const store = mapStore();
    const governance = createGovernance({ source: fixedSettings(), store, logger: silentLogger, model: "gpt-4o-mini", maxSteps: 10 });
    const entry = (guild: string, runId: string) => ({
      kind: "approval_requested" as const,
      runId,
      conversationKey: `discord:${guild}:${guild}-general`,
      surface: "discord" as const,
      place: { guild },
      requester: { id: "300" },
      tool: "post_note",
    });
    await governance.runPolicy.audit.append(entry("G1", "run-in-g1"));
    await governance.runPolicy.audit.append(entry("G2", "run-in-g2"));
    const inG2 = await governance.commands.audit("markdown", { surface: "discord", workspace: "G2" });
    expect(inG2).toContain("run-in-g2");
    expect(inG2).not.toContain("run-in-g1");
    const everything = await governance.commands.audit("markdown");
    expect(everything).toContain("run-in-g1");
    expect(everything).toContain("run-in-g2");
  });
});
