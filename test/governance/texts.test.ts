// The texts of `settings` and `audit` that a first user meets: the demo model and the step
// default named as they are, how to become an admin, and people named by their settings-file id.
import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../src/governance/audit-log.js";
import { auditLine, auditRefusalText, DEMO_MODEL_TEXT, settingsText } from "../../src/governance/command-text.js";

const run = { toolRules: { allow: [], deny: [] }, memory: true, threadFollowUps: true } as unknown as Parameters<
  typeof settingsText
>[0]["run"];

function entry(overrides: Partial<AuditEntry>): AuditEntry {
  return {
    seq: 1,
    at: Date.UTC(2027, 0, 18, 8, 0, 0),
    kind: "approval_requested",
    runId: "r1",
    conversationKey: "console:local",
    surface: "console",
    place: {},
    // The console's requester: the id the settings file lists, the OS user's name.
    requester: { id: "console", name: "root" },
    tool: "post_note",
    process: { pid: 7, hostname: "host" },
    ...overrides,
  };
}

describe("settings", () => {
  const base = { allowances: [], admin: false, now: 0, defaultConcurrentMessages: "queue" as const };

  it("in demo mode names the demo model, not OPENAI_MODEL, and the default steps as a number", () => {
    const text = settingsText({ ...base, run, defaultModel: DEMO_MODEL_TEXT, demo: true, defaultMaxSteps: 10 });
    expect(text).toContain("• model: the offline demo model (arithmetic and time only; set OPENAI_API_KEY for a real one)");
    expect(text).toContain("• steps per run: 10 (AGENT_MAX_STEPS; this channel sets none of its own)");
    expect(text).not.toContain("gpt-4o-mini");
  });

  it("shows a channel's own model and steps, except that the demo model answers in demo mode", () => {
    const channel = { ...run, model: "gpt-4.1", maxSteps: 4 };
    expect(settingsText({ ...base, run: channel, defaultModel: "gpt-4o-mini", demo: false, defaultMaxSteps: 10 })).toMatch(
      /• model: gpt-4\.1\n.*\n• steps per run: 4\n/,
    );
    expect(settingsText({ ...base, run: channel, defaultModel: DEMO_MODEL_TEXT, demo: true, defaultMaxSteps: 10 })).toContain(
      `• model: ${DEMO_MODEL_TEXT}`,
    );
  });

  it("says how replies in a thread and messages while a run works are taken, the channel's own or the default", () => {
    const defaults = settingsText({ ...base, run, defaultModel: "gpt-4o-mini", demo: false, defaultMaxSteps: 10 });
    expect(defaults).toContain("• replies in a thread: answered without a mention, once the bot works there");
    expect(defaults).toContain("• a message while a run works: queue (CONCURRENT_MESSAGES)");
    const channel = { ...run, threadFollowUps: false, concurrentMessages: "steer" as const };
    const own = settingsText({ ...base, run: channel, defaultModel: "gpt-4o-mini", demo: false, defaultMaxSteps: 10 });
    expect(own).toContain("• replies in a thread: answered only with a mention");
    expect(own).toContain("• a message while a run works: steer\n");
  });
});

describe("audit", () => {
  it("tells a person who may not see it how to become an admin, with their own id", () => {
    expect(auditRefusalText("console", "console", "/srv/bot/bot.settings.json")).toBe(
      'Only the bot\'s admins can see the audit log. An admin adds your id "console" to access.admins.console in /srv/bot/bot.settings.json.',
    );
    expect(auditRefusalText("slack", "U0ALICE", undefined)).toBe(
      'Only the bot\'s admins can see the audit log. An admin adds your id "U0ALICE" to access.admins.slack in a settings file (bot.settings.json in the working directory, or the one BOT_SETTINGS names).',
    );
  });

  it('names a schedule\'s own entry as the schedule (it has no run), and shows no bare "thread" without a link', () => {
    const created = entry({ kind: "schedule_created", runId: "sch_ab12cd34", tool: undefined, schedule: { id: "sch_ab12cd34" } });
    const line = auditLine(created, "plain");
    expect(line).toContain("· schedule sch_ab12cd34 ·");
    expect(line).not.toContain("run sch_");
    expect(line).toMatch(/· host\/7$/);
    expect(auditLine(entry({ link: "https://example.slack.com/archives/C1/p1" }), "plain")).toMatch(
      /· run r1 · host\/7 · thread https:\/\/example/,
    );
  });

  it("names people by name and by the id the settings file lists them by", () => {
    expect(auditLine(entry({}), "plain")).toContain("· asked by root (console) ·");
    expect(auditLine(entry({ kind: "approval_decided", decision: "deny", decidedBy: { id: "console", name: "root" } }), "plain")).toContain(
      "· denied by root (console) ·",
    );
    expect(auditLine(entry({ surface: "slack", requester: { id: "U0ALICE" } }), "plain")).toContain("· asked by U0ALICE ·");
    expect(auditLine(entry({ surface: "discord", requester: { id: "81", name: "81" } }), "plain")).toContain("· asked by 81 ·");
  });

  it("says how a server's form ended and who answered it, never what they entered", () => {
    const form = (shape: NonNullable<AuditEntry["form"]>, by?: AuditEntry["decidedBy"]) =>
      auditLine(entry({ kind: "form_answered", tool: undefined, form: shape, ...(by ? { decidedBy: by } : {}) }), "plain");
    expect(form({ server: "wiki", kind: "url", action: "accept" }, { id: "console", name: "root" })).toContain(
      "· form answered · page of wiki: shown to root (console) · run r1 ·",
    );
    expect(form({ server: "rooms", kind: "form", action: "cancel", reason: "stopped" })).toContain(
      "form of rooms: cancelled (its run was stopped)",
    );
    expect(form({ server: "rooms", kind: "form", action: "cancel", reason: "withdrawn" })).toContain(
      "form of rooms: cancelled (withdrawn by the server)",
    );
  });
});
