// Who may do what, one table for every surface (src/governance/authority.ts).
import { describe, expect, it } from "vitest";
import { approversFrom, createAuthority, type Actor } from "../../src/governance/authority.js";
import { fixedSettings } from "../../src/governance/settings-source.js";
import { loadConfig } from "../../src/config.js";
import { settingsOf } from "../support/governance-harness.js";

const settings = settingsOf({ access: { admins: { slack: ["UADMIN"], discord: ["900"], console: ["console"] } } });
const authority = createAuthority({
  approvers: { users: { slack: ["UAPPROVER"], discord: ["700"] }, roles: { discord: ["70"] } },
  settings: fixedSettings(settings),
});
const slack = (id: string): Actor => ({ surface: "slack", id, roles: [] });
const discord = (id: string, roles: readonly string[] = []): Actor => ({ surface: "discord", id, roles });
const requester = { id: "UALICE" };

describe("the authority", () => {
  it("lets the requester, an approver of the surface and its admins decide and stop a run, and nobody else", () => {
    for (const action of ["decide", "stop"] as const) {
      expect(authority.may(action, slack("UALICE"), requester)).toBe(true);
      expect(authority.may(action, slack("UAPPROVER"), requester)).toBe(true);
      expect(authority.may(action, slack("UADMIN"), requester)).toBe(true);
      expect(authority.may(action, slack("UBOB"), requester)).toBe(false);
      expect(authority.may(action, discord("800", ["70"]), { id: "100" })).toBe(true);
      expect(authority.may(action, discord("800", ["71"]), { id: "100" })).toBe(false);
      // An approver or admin of one surface is nobody on another.
      expect(authority.may(action, discord("UAPPROVER"), { id: "100" })).toBe(false);
      expect(authority.may(action, { surface: "console", id: "UADMIN", roles: [] }, { id: "x" })).toBe(false);
    }
  });

  it("shows the feedback to approvers and admins, the audit log and usage to admins only", () => {
    expect(authority.may("feedback", slack("UAPPROVER"))).toBe(true);
    expect(authority.may("feedback", slack("UADMIN"))).toBe(true);
    expect(authority.may("feedback", discord("800", ["70"]))).toBe(true);
    expect(authority.may("feedback", slack("UALICE"))).toBe(false);
    for (const action of ["audit", "usage", "others_schedules"] as const) {
      expect(authority.may(action, slack("UADMIN"))).toBe(true);
      expect(authority.may(action, slack("UAPPROVER"))).toBe(false);
      expect(authority.may(action, discord("900"))).toBe(true);
    }
  });

  it("lets anyone read and clear memory, unless the settings keep forget for admins", () => {
    expect(authority.may("memory", slack("UBOB"))).toBe(true);
    expect(authority.may("forget", slack("UBOB"))).toBe(true);
    const strict = createAuthority({
      approvers: {},
      settings: fixedSettings(settingsOf({ access: { forget: "admins", admins: { slack: ["UADMIN"] } } })),
    });
    expect(strict.may("memory", slack("UBOB"))).toBe(true);
    expect(strict.may("forget", slack("UBOB"))).toBe(false);
    expect(strict.may("forget", slack("UADMIN"))).toBe(true);
  });

  it("names the surface's own approvers for its approval cards, from the environment", () => {
    const config = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-x",
      SLACK_SIGNING_SECRET: "s",
      SLACK_APPROVERS: "U1,U2",
      DISCORD_TOKEN: "t",
      DISCORD_APPLICATION_ID: "1",
      DISCORD_APPROVERS: "7",
      DISCORD_APPROVER_ROLE: "70",
    });
    const fromEnv = createAuthority({ approvers: approversFrom(config), settings: fixedSettings() });
    expect(fromEnv.deciders("slack")).toEqual({ users: ["U1", "U2"], roles: [] });
    expect(fromEnv.deciders("discord")).toEqual({ users: ["7"], roles: ["70"] });
    expect(fromEnv.deciders("console")).toEqual({ users: [], roles: [] });
  });
});
