// What the stored-data fixtures were written with and are read back with: the conversations,
// the tools (a write allowed by policy, a write that waits for approval), the settings and the
// clock. write-stored-fixtures.ts runs today's code on them; test/app/stored-data-compat.test.ts resumes
// what it left. Ids made at random (run ids, the key) are in the fixture's manifest.json.
import { z } from "zod";
import type { Tool, TaskOrigin } from "../../src/contracts/types.js";

/** The time the fixtures were written at (the services' clock), and read back at. */
export const FIXTURE_NOW = Date.UTC(2026, 11, 1, 9, 0, 0);

export const slackPlace = (channel: string, ts: string): TaskOrigin => ({
  surface: "slack",
  conversationKey: `slack:T1:${channel}:${ts}`,
  requester: { id: "U_DANA", name: "Dana" },
  place: { team: "T1", channel, thread_ts: ts, reply_thread_ts: ts },
});

/** One conversation per stored state, each with its platform receipt (the intake id is derived from it). */
export const conversations = {
  /** Answered; left facts, history, a feedback vote. */
  done: {
    origin: slackPlace("C_FIXTURE", "1764579600.000100"),
    receipt: "C_FIXTURE:1764579600.000100",
    text: "My name is Dana and I run the billing team.",
  },
  /** Waits for approval of send_payment. */
  paused: { origin: slackPlace("C_FIXTURE", "1764579600.000200"), receipt: "C_FIXTURE:1764579600.000200", text: "Pay invoice INV-7." },
  /** Two steps checkpointed (the second as a delta), a policy-allowed write done; stopped while the model thought. */
  interrupted: {
    origin: slackPlace("C_FIXTURE", "1764579600.000300"),
    receipt: "C_FIXTURE:1764579600.000300",
    text: "Post the standup note, then add 2 and 3.",
  },
  /** Stopped while a policy-allowed write ran: its ledger entry says executing. */
  executing: {
    origin: slackPlace("C_FIXTURE", "1764579600.000400"),
    receipt: "C_FIXTURE:1764579600.000400",
    text: "Tell everyone the build is red.",
  },
} as const;

/** The ids today's code made for each conversation (a recorded run's id is its intake id). */
export interface FixtureIds {
  readonly done: { readonly runId: string; readonly conversationKey: string };
  readonly paused: { readonly runId: string; readonly callId: string; readonly conversationKey: string };
  readonly interrupted: { readonly runId: string; readonly conversationKey: string };
  readonly executing: { readonly runId: string; readonly callId: string; readonly conversationKey: string };
}

export const NOTE_TEXT = "standup moved to 10:00";
export const HANGING_NOTE_TEXT = "the build is red";
export const FACT = "The person is Dana and runs the billing team.";

/** The fixture's environment: post_note is allowed by policy, send_payment waits for a person. */
export const fixtureEnv = (keyFile: string): Record<string, string> => ({
  TOOL_POLICY: "post_note=allow",
  APPROVAL_KEY_FILE: keyFile,
  APPROVAL_TIMEOUT_MS: String(60 * 60_000),
});

export interface FixtureTools {
  readonly tools: readonly Tool[];
  /** Each post_note and send_payment that really ran, in order. */
  readonly ran: string[];
}

/** post_note hangs for HANGING_NOTE_TEXT (a write the process dies during), else posts. */
export function fixtureTools(): FixtureTools {
  const ran: string[] = [];
  const postNote: Tool<{ text: string }> = {
    name: "post_note",
    description: "posts a note in the channel",
    schema: z.object({ text: z.string() }),
    effect: "write",
    execute: async ({ text }) => {
      ran.push(`post_note ${text}`);
      if (text === HANGING_NOTE_TEXT) return new Promise<string>(() => {});
      return `posted: ${text}`;
    },
  };
  const sendPayment: Tool<{ invoice: string; amount: number }> = {
    name: "send_payment",
    description: "pays an invoice",
    schema: z.object({ invoice: z.string(), amount: z.number() }),
    effect: "write",
    execute: async ({ invoice, amount }) => {
      ran.push(`send_payment ${invoice} ${amount}`);
      return `paid ${invoice}: ${amount} EUR`;
    },
  };
  return { tools: [postNote, sendPayment], ran };
}

/** Every field of today's settings file, with values the fixture's runs pass. */
export const fixtureSettings = {
  access: {
    admins: { slack: ["U_ADMIN"], discord: ["100000000000000001"], console: [] },
    allow: { users: [], roles: [], channels: [] },
    block: { users: ["U_BLOCKED"], roles: ["200000000000000002"], channels: ["C_BLOCKED"] },
    dms: true,
  },
  limits: {
    user: { runsPerMinute: 30, tokensPerDay: 200_000 },
    channel: { runsPerMinute: 120, tokensPerDay: 1_000_000 },
    admins: { runsPerMinute: 600 },
  },
  channels: {
    default: { systemPrompt: "Answer briefly.", memory: "on" },
    C_FIXTURE: { maxSteps: 12, tools: { allow: ["*"], deny: ["delete_*"] } },
    C_QUIET: { model: "gpt-4o-mini", memory: "off", systemPrompt: "Be terse." },
  },
};
