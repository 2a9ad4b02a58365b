// The texts of `settings` and `audit` that a first user meets: the demo model and the step
// default named as they are, how to become an admin, and people named by their settings-file id.
import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../src/governance/audit-log.js";
import { auditLine, auditRefusalText, DEMO_MODEL_TEXT, settingsText } from "../../src/governance/command-text.js";

const run = { toolRules: { allow: [], deny: [] }, memory: true } as unknown as Parameters<typeof settingsText>[0]["run"];

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
  const base = { allowances: [], admin: false, now: 0 };

  it("in demo mode names the demo model, not OPENAI_MODEL, and the default steps as a number", () => {
    const text = settingsText({ ...base, run, defaultModel: DEMO_MODEL_TEXT, demo: true, defaultMaxSteps: 10 });
    expect(text).toContain("• model: the offline demo model (arithmetic and time only; set OPENAI_API_KEY for a real one)");
    expect(text).toContain("• steps per run: 10 (the default, AGENT_MAX_STEPS)");
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

  it("names people by name and by the id the settings file lists them by", () => {
    expect(auditLine(entry({}), "plain")).toContain("· asked by root (console) ·");
    expect(auditLine(entry({ kind: "approval_decided", decision: "deny", decidedBy: { id: "console", name: "root" } }), "plain")).toContain(
      "· denied by root (console) ·",
    );
    expect(auditLine(entry({ surface: "slack", requester: { id: "U0ALICE" } }), "plain")).toContain("· asked by U0ALICE ·");
    expect(auditLine(entry({ surface: "discord", requester: { id: "81", name: "81" } }), "plain")).toContain("· asked by 81 ·");
  });
});
