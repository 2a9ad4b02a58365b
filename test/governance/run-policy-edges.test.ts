// The run policy at its edges: a daily token limit at exactly the limit and after an overshoot,
// admins held to their own limits, a channel's token limit stopping everyone there, and DMs and
// the console under a channel allow list. Through createRunPolicy, as the runner asks it.
import { describe, expect, it } from "vitest";
import type { TaskOrigin } from "../../src/contracts/types.js";
import { createAuditLog } from "../../src/governance/audit-log.js";
import { createRunPolicy, type RunPolicy } from "../../src/governance/run-policy.js";
import { parseSettingsText } from "../../src/governance/settings-file.js";
import { fixedSettings } from "../../src/governance/settings-source.js";
import { silentLogger } from "../../src/logger.js";
import { conversationAt, type DiscordPlace, upgradeOrigin } from "../../src/adapters/discord/discord-place.js";
import { settingsOf, slackOrigin } from "../support/governance-harness.js";
import { mapStore } from "../support/map-store.js";

const DAY_START = Date.UTC(2026, 11, 1);
const NOON = DAY_START + 12 * 60 * 60_000;

function policy(settings: unknown, clock: () => number = () => NOON): RunPolicy {
  const store = mapStore();
  return createRunPolicy({
    settings: fixedSettings(settingsOf(settings)),
    store,
    audit: createAuditLog(store, clock),
    logger: silentLogger,
    clock,
  });
}

/** A Discord origin as the surface writes it at intake: its scope from Discord's place codec. */
function discordOrigin(user: string, place: DiscordPlace): TaskOrigin {
  const { conversationKey, scope, place: stored } = conversationAt(place);
  return { surface: "discord", conversationKey, requester: { id: user }, scope: { ...scope, roles: [] }, place: stored };
}
/** The same origin as an earlier version stored it (no scope), read back through the codec as the runs load it. */
function storedDiscordOrigin(user: string, place: DiscordPlace): TaskOrigin {
  const { scope: _none, ...stored } = discordOrigin(user, place);
  return upgradeOrigin(stored).origin;
}
const consoleOrigin: TaskOrigin = { surface: "console", conversationKey: "console:local", requester: { id: "local" }, place: {} };

describe("a daily token limit", () => {
  it("does not stop a run one token under it; reaching it exactly stops the run and refuses the next", async () => {
    const limits = policy({ limits: { user: { tokensPerDay: 1000 } } });
    const origin = slackOrigin("U1");
    expect(await limits.recordUsage(origin, 999)).toBeUndefined();
    expect(await limits.admit(origin)).toEqual({ kind: "admitted" });
    expect(await limits.recordUsage(origin, 1)).toEqual({
      guard: "token_limit",
      detail: "the person's daily limit of 1000 model tokens is reached",
      sentence: "Stopped: your daily limit of 1,000 model tokens is reached; it resets at 00:00 UTC.",
    });
    expect(await limits.admit(origin)).toEqual({
      kind: "refused",
      refusal: { kind: "limited", limit: "tokens", scope: "user", max: 1000, resetsAt: DAY_START + 24 * 60 * 60_000 },
      text: "Sorry, your daily limit of 1,000 model tokens is reached. It resets at 00:00 UTC.",
    });
  });

  it("after a run overshot it, refuses the next run until the day is over", async () => {
    let now = NOON;
    const limits = policy({ limits: { user: { tokensPerDay: 1000 } } }, () => now);
    const origin = slackOrigin("U1");
    expect(await limits.recordUsage(origin, 1_700)).toMatchObject({ guard: "token_limit" });
    expect(await limits.admit(origin)).toMatchObject({ kind: "refused", refusal: { limit: "tokens", scope: "user" } });
    expect(await limits.allowances(origin)).toContainEqual(expect.objectContaining({ limit: "tokens", left: 0 }));
    now = DAY_START + 24 * 60 * 60_000;
    expect(await limits.admit(origin)).toEqual({ kind: "admitted" });
  });

  it("with runs a minute: the run at the limit is admitted, the one after is refused", async () => {
    const limits = policy({ limits: { user: { runsPerMinute: 2 } } });
    const origin = slackOrigin("U1");
    expect(await limits.admit(origin)).toEqual({ kind: "admitted" });
    expect(await limits.admit(origin)).toEqual({ kind: "admitted" });
    expect(await limits.admit(origin)).toMatchObject({ kind: "refused", refusal: { limit: "runs", max: 2 } });
  });
});

describe("admins and limits", () => {
  it("an admin with limits of their own is held to those, not to the user limits", async () => {
    const limits = policy({
      access: { admins: { slack: ["UADMIN"] } },
      limits: { user: { tokensPerDay: 100 }, admins: { tokensPerDay: 1000 } },
    });
    expect(await limits.recordUsage(slackOrigin("UADMIN"), 500)).toBeUndefined();
    expect(await limits.admit(slackOrigin("UADMIN"))).toEqual({ kind: "admitted" });
    expect(await limits.allowances(slackOrigin("UADMIN"))).toEqual([
      { scope: "user", limit: "tokens", max: 1000, left: 500, resetsAt: DAY_START + 24 * 60 * 60_000 },
    ]);
    expect(await limits.recordUsage(slackOrigin("UADMIN"), 500)).toMatchObject({
      guard: "token_limit",
      detail: expect.stringMatching(/1000/),
    });
    // A user who used as much is past the user limit.
    expect(await limits.recordUsage(slackOrigin("U1"), 500)).toMatchObject({
      guard: "token_limit",
      detail: expect.stringMatching(/ 100 /),
    });
  });

  it("an admin without limits of their own is never stopped or refused for tokens, by the user or the channel limit", async () => {
    const limits = policy({
      access: { admins: { slack: ["UADMIN"] } },
      limits: { user: { tokensPerDay: 100 }, channel: { tokensPerDay: 10_000 } },
    });
    expect(await limits.recordUsage(slackOrigin("UADMIN"), 5_000)).toBeUndefined();
    expect(await limits.recordUsage(slackOrigin("UADMIN"), 5_000)).toBeUndefined();
    expect(await limits.admit(slackOrigin("UADMIN"))).toEqual({ kind: "admitted" });
    expect(await limits.allowances(slackOrigin("UADMIN"))).toEqual([]);
    expect(await limits.admit(slackOrigin("U1", "C2"))).toEqual({ kind: "admitted" });
  });
});

describe("a channel's daily token limit", () => {
  it("stops the run that reaches it and refuses everyone in that channel, not elsewhere", async () => {
    const limits = policy({ limits: { channel: { tokensPerDay: 100 } } });
    expect(await limits.recordUsage(slackOrigin("U1", "C1"), 60)).toBeUndefined();
    expect(await limits.recordUsage(slackOrigin("U2", "C1"), 40)).toEqual({
      guard: "token_limit",
      detail: "the channel's daily limit of 100 model tokens is reached",
      sentence: "Stopped: the channel's daily limit of 100 model tokens is reached; it resets at 00:00 UTC.",
    });
    expect(await limits.admit(slackOrigin("U3", "C1"))).toMatchObject({
      kind: "refused",
      refusal: { limit: "tokens", scope: "channel", max: 100 },
      text: "Sorry, this channel's daily limit of 100 model tokens is reached. It resets at 00:00 UTC.",
    });
    expect(await limits.admit(slackOrigin("U3", "C2"))).toEqual({ kind: "admitted" });
  });

  it("with the person's own limit reached as well, names the person's", async () => {
    const limits = policy({ limits: { user: { tokensPerDay: 50 }, channel: { tokensPerDay: 50 } } });
    expect(await limits.recordUsage(slackOrigin("U1", "C1"), 50)).toMatchObject({
      detail: "the person's daily limit of 50 model tokens is reached",
    });
  });
});

describe("direct messages and the console under a channel allow list", () => {
  const onlyC1 = { access: { allow: { channels: ["C1", "111"] } } };

  it("a Slack DM is governed by `dms`, not by the channel list", async () => {
    const dm = slackOrigin("U1", "D0123");
    expect(await policy(onlyC1).admit(dm)).toEqual({ kind: "admitted" });
    expect(await policy({ access: { ...onlyC1.access, dms: false } }).admit(dm)).toMatchObject({
      kind: "refused",
      refusal: { kind: "access", reason: "dms_off" },
    });
    expect(await policy(onlyC1).admit(slackOrigin("U1", "C9"))).toMatchObject({ refusal: { reason: "channel_not_allowed" } });
  });

  it("the console is not refused by a channel list", async () => {
    expect(await policy(onlyC1).admit(consoleOrigin)).toEqual({ kind: "admitted" });
  });

  it("a Discord message without a guild is a DM, whatever its channel kind says", async () => {
    for (const origin of [discordOrigin, storedDiscordOrigin])
      for (const channelKind of ["dm", "other"] as const) {
        const dm = origin("42", { guild: null, channel: "999", channelKind });
        expect(await policy(onlyC1).admit(dm)).toEqual({ kind: "admitted" });
        expect(await policy({ access: { ...onlyC1.access, dms: false } }).admit(dm)).toMatchObject({ refusal: { reason: "dms_off" } });
      }
    expect(await policy(onlyC1).admit(discordOrigin("42", { guild: "G1", channel: "999", channelKind: "text" }))).toMatchObject({
      refusal: { reason: "channel_not_allowed" },
    });
    expect(await policy(onlyC1).admit(discordOrigin("42", { guild: "G1", channel: "111", channelKind: "text" }))).toEqual({
      kind: "admitted",
    });
  });
});

describe("allow lists of people, threads and the console's counters", () => {
  it("with people listed, someone not on the list is refused, and someone on it admitted", async () => {
    const onlyU1 = policy({ access: { allow: { users: ["U1"] } } });
    expect(await onlyU1.admit(slackOrigin("U2"))).toMatchObject({
      kind: "refused",
      refusal: { kind: "access", reason: "user_not_allowed" },
    });
    expect(await onlyU1.admit(slackOrigin("U1"))).toEqual({ kind: "admitted" });
  });

  it("a thread is admitted by its allowed parent channel, though the thread itself is not listed", async () => {
    const onlyParent = policy({ access: { allow: { channels: ["111"] } } });
    const thread = discordOrigin("42", { guild: "G1", channel: "T5", parent: "111", channelKind: "thread" });
    expect(await onlyParent.admit(thread)).toEqual({ kind: "admitted" });
  });

  it("the console has no channel: a channel's run limit does not count it", async () => {
    const oneRunPerChannel = policy({ limits: { channel: { runsPerMinute: 1 } } });
    for (let run = 0; run < 3; run += 1) expect(await oneRunPerChannel.admit(consoleOrigin)).toEqual({ kind: "admitted" });
    expect(await oneRunPerChannel.admit(slackOrigin("U1"))).toEqual({ kind: "admitted" });
    expect(await oneRunPerChannel.admit(slackOrigin("U2"))).toMatchObject({ refusal: { limit: "runs", scope: "channel" } });
  });
});

describe("the settings file's format", () => {
  it("is YAML for .yaml and .yml in any case, JSON otherwise", async () => {
    const yaml = "access:\n  dms: false\n";
    for (const path of ["bot.yml", "x.YML", "bot.yaml", "bot.Yaml"])
      expect(await parseSettingsText(yaml, path)).toMatchObject({ kind: "ok", settings: { access: { dms: false } } });
    expect(await parseSettingsText(yaml, "bot.json")).toMatchObject({
      kind: "invalid",
      problems: [expect.stringMatching(/^not valid JSON/)],
    });
  });
});
