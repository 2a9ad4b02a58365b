// The pure access, limit and authority decisions at their edges: who counts as admin, a list of
// people without roles, a thread of an allowed channel, the console's counters, the TTL a counter
// is written with, which refusal wins, and an authority asked without approvers or an owner.
import { describe, expect, it } from "vitest";
import { decideAccess, type Subject } from "../../src/governance/access.js";
import { approversFrom, createAuthority } from "../../src/governance/authority.js";
import { admitRun, allowances, countersNow, recordTokens } from "../../src/governance/limits.js";
import { fixedSettings } from "../../src/governance/settings-source.js";
import { settingsOf } from "../support/governance-harness.js";
import { mapStore } from "../support/map-store.js";

const subject = (over: Partial<Subject> = {}): Subject => ({
  surface: "slack",
  userId: "U1",
  roles: [],
  channelId: "C1",
  threadId: undefined,
  dm: false,
  ...over,
});
const consoleSubject = subject({ surface: "console", userId: "local", channelId: undefined });
const MINUTE_START = Date.UTC(2026, 11, 1, 12, 0);

describe("decideAccess", () => {
  it("says an admin is one, and an ordinary person is not", () => {
    const settings = settingsOf({ access: { admins: { slack: ["UADMIN"] } } });
    expect(decideAccess(settings, subject({ userId: "UADMIN" }))).toEqual({ kind: "allowed", admin: true });
    expect(decideAccess(settings, subject())).toEqual({ kind: "allowed", admin: false });
  });

  it("refuses a person missing from an allow list of people that names no roles", () => {
    const settings = settingsOf({ access: { allow: { users: ["U1"] } } });
    expect(decideAccess(settings, subject({ userId: "U2" }))).toEqual({ kind: "refused", reason: "user_not_allowed" });
    expect(decideAccess(settings, subject())).toEqual({ kind: "allowed", admin: false });
  });

  it("admits a thread of an allowed channel though the thread is not listed itself", () => {
    const settings = settingsOf({ access: { allow: { channels: ["C1"] } } });
    expect(decideAccess(settings, subject({ threadId: "T9" }))).toEqual({ kind: "allowed", admin: false });
  });

  it("lets the console in under a channel allow list, not as an admin", () => {
    const settings = settingsOf({ access: { allow: { channels: ["C1"] } } });
    expect(decideAccess(settings, consoleSubject)).toEqual({ kind: "allowed", admin: false });
  });
});

describe("the limit counters", () => {
  it("gives the console, which has no channel, no channel counter", async () => {
    const settings = settingsOf({ limits: { channel: { runsPerMinute: 5, tokensPerDay: 100 } } });
    expect(await allowances(mapStore(), settings, consoleSubject, false, MINUTE_START)).toEqual([]);
  });

  it("writes a counter to live until its window ends, and a minute more", async () => {
    const store = mapStore();
    const settings = settingsOf({ limits: { user: { runsPerMinute: 5 } } });
    await admitRun(store, settings, subject(), false, MINUTE_START + 20_000);
    const [runsKey] = [...store.ttls.keys()].filter((key) => key.startsWith("limit:runs:user:"));
    expect(store.ttls.get(runsKey ?? "")).toBe(40_000 + 60_000);
  });

  it("names, for a removed workspace, the counters a run counted just before the minute and the day turned", async () => {
    const store = mapStore();
    const settings = settingsOf({
      limits: { user: { runsPerMinute: 5, tokensPerDay: 100 }, channel: { runsPerMinute: 5, tokensPerDay: 100 } },
    });
    const inWorkspace = subject({ workspace: "T1" });
    const lastMoment = Date.UTC(2026, 11, 1, 23, 59, 59, 900);
    await admitRun(store, settings, inWorkspace, false, lastMoment);
    await recordTokens(store, settings, inWorkspace, false, 7, lastMoment);
    const counted = [...store.ttls.keys()].filter((key) => key.startsWith("limit:") && key.includes(":T1:"));
    expect(counted.length).toBeGreaterThan(0);
    const named = countersNow("slack", "T1", ["U1"], ["C1"], lastMoment + 200);
    expect(counted.filter((key) => !named.includes(key))).toEqual([]);
  });

  it("holds an admin to no channel limit when the settings give admins none", async () => {
    const store = mapStore();
    const settings = settingsOf({ access: { admins: { slack: ["UADMIN"] } }, limits: { channel: { runsPerMinute: 1, tokensPerDay: 10 } } });
    const admin = subject({ userId: "UADMIN" });
    expect(await admitRun(store, settings, admin, true, MINUTE_START)).toEqual({ kind: "ok" });
    expect(await admitRun(store, settings, admin, true, MINUTE_START)).toEqual({ kind: "ok" });
    expect(await recordTokens(store, settings, admin, true, 50, MINUTE_START)).toEqual({ kind: "ok" });
  });

  it("names the person's limit when the person's and the channel's are both passed", async () => {
    const store = mapStore();
    const settings = settingsOf({
      limits: { user: { runsPerMinute: 1, tokensPerDay: 10 }, channel: { runsPerMinute: 1, tokensPerDay: 10 } },
    });
    await admitRun(store, settings, subject(), false, MINUTE_START);
    expect(await admitRun(store, settings, subject(), false, MINUTE_START)).toMatchObject({
      kind: "limited",
      limit: "runs",
      scope: "user",
    });
    expect(await recordTokens(store, settings, subject(), false, 20, MINUTE_START)).toMatchObject({
      kind: "limited",
      limit: "tokens",
      scope: "user",
    });
  });
});

describe("the authority without approvers or an owner", () => {
  const settings = fixedSettings(settingsOf({ access: { admins: { slack: ["UADMIN"] } } }));

  it("reads no approvers from an environment that names none", () => {
    expect(approversFrom({ slack: undefined, discord: undefined })).toEqual({ users: { slack: [], discord: [] }, roles: { discord: [] } });
  });

  it("has no deciders when it was given no approver lists at all", () => {
    const authority = createAuthority({ approvers: {}, settings });
    expect(authority.deciders("slack")).toEqual({ users: [], roles: [] });
    expect(authority.may("decide", { surface: "slack", id: "U2", roles: [] }, { id: "U1" })).toBe(false);
  });

  it("answers a stop asked without an owner: only approvers and admins", () => {
    const authority = createAuthority({ approvers: { users: { slack: ["UAPP"] } }, settings });
    expect(authority.may("stop", { surface: "slack", id: "U2", roles: [] })).toBe(false);
    expect(authority.may("stop", { surface: "slack", id: "UAPP", roles: [] })).toBe(true);
    expect(authority.may("stop", { surface: "slack", id: "UADMIN", roles: [] })).toBe(true);
  });
});
