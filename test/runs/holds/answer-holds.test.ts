// The hold before an answer is posted (issue 39, item 3), driven through its edge with a store and
// a platform's audiences standing in: the three CROSS_CHANNEL_READS modes, a member list that
// includes and one that excludes the destination's people, a platform that can't tell, the three
// choices, and a restart while the answer waits (a new edge on the same store posts nothing).
import { describe, expect, it } from "vitest";
import type { CallRecord, RunOutcome, TaskOrigin } from "../../../src/contracts/types.js";
import type { AuditDraft } from "../../../src/governance/audit-log.js";
import { silentLogger } from "../../../src/logger.js";
import type { Audience } from "../../../src/runs/api/audiences.js";
import type { PrivateDelivery } from "../../../src/runs/api/surface-hooks.js";
import { type AnswerHolds, chooseHeld, holdIfQuoting, mayHold } from "../../../src/runs/holds/answer-holds.js";
import { heldAnswers } from "../../../src/runs/holds/held-answers.js";
import type { CrossChannelReads } from "../../../src/runs/holds/hold-decision.js";
import { mapStore } from "../../support/map-store.js";
import { runState } from "../../support/run-states.js";
import { slackAsked } from "../../support/slack-origins.js";

const secret = "The acquisition of Initech closes on March 3 and nobody outside the board may know yet.";
const origin: TaskOrigin = slackAsked("U0ALICE", "C0GENERAL");
const readHr: CallRecord = {
  callId: "c1",
  tool: "read_channel",
  args: '{"channel":"C0BOARD"}',
  signature: "s",
  outcome: "ok",
  result: `[2026-01-01 10:00 UTC · ts 1] <@U0BOB>: ${secret}`,
  observation: "",
  durationMs: 1,
  source: { kind: "tool", tool: "read_channel", channel: "C0BOARD" },
};
const state = runState({ runId: "run_h", origin, steps: [{ index: 1, startedAt: 0, durationMs: 1, text: null, calls: [readHr] }] });
const answered = (answer: string): RunOutcome => ({ status: "answered", runId: "run_h", answer, steps: state.steps, usage: state.usage });
const quoting = answered(`The board channel says: ${secret}`);

function stand(mode: CrossChannelReads, audiences: Record<string, Audience>, store = mapStore(), sent: PrivateDelivery = "direct message") {
  const told: Array<{ text: string; choices?: { runId: string } }> = [];
  const posted: string[] = [];
  const audit: AuditDraft[] = [];
  const holds: AnswerHolds = {
    mode,
    audiences: (surface) =>
      surface === "console"
        ? undefined
        : {
            destinationOf: (at) => at.place.channel,
            audienceOf: async (_, channel) => audiences[channel] ?? { kind: "unknown", why: "not in the test" },
          },
    held: heldAnswers(store),
    async offer(_, text, runId) {
      told.push({ text, choices: { runId } });
      return true;
    },
    async tell(_, text) {
      told.push({ text });
      return sent;
    },
    async post(_, text) {
      posted.push(text);
      return true;
    },
    audit: async (draft) => audit.push(draft),
    logger: silentLogger,
    clock: () => 1_000,
  };
  return { holds, told, posted, audit, store };
}

const members = (...ids: string[]): Audience => ({ kind: "members", members: new Set(ids) });
const general = members("U0BOT", "U0ALICE", "U0BOB", "U0EVE");
const excludes = { C0GENERAL: general, C0BOARD: members("U0BOT", "U0ALICE", "U0BOB") };
const includes = { C0GENERAL: general, C0BOARD: members("U0BOT", "U0ALICE", "U0BOB", "U0EVE", "U0CEO") };

describe("holdIfQuoting", () => {
  it("ask: holds an answer quoting a channel Eve can't see, keeps it, and asks Alice privately with the choices", async () => {
    const { holds, told, audit } = stand("ask", excludes);
    const shown = await holdIfQuoting(holds, quoting, state);
    expect(shown).toMatchObject({ status: "answered", held: { places: ["C0BOARD"], action: "ask" } });
    expect(shown.status === "answered" && shown.answer).not.toContain("Initech");
    expect(shown.status === "answered" && shown.answer).toContain("I asked <@U0ALICE> privately");
    expect(told).toEqual([{ text: expect.stringContaining(secret), choices: { runId: "run_h" } }]);
    expect(audit).toMatchObject([{ kind: "answer_held", runId: "run_h", reason: "quotes C0BOARD", outcome: "asked" }]);
  });

  it("posts the answer as written when everyone in the destination can see the channel it quotes", async () => {
    const { holds, told, audit } = stand("ask", includes);
    expect(await holdIfQuoting(holds, quoting, state)).toBe(quoting);
    expect(told).toEqual([]);
    expect(audit).toEqual([]);
  });

  it("posts an answer that quotes nothing it read, without asking the platform", async () => {
    const { holds } = stand("ask", {});
    const plain = answered("The board meets on Tuesdays.");
    expect(await holdIfQuoting(holds, plain, state)).toBe(plain);
  });

  it("private: sends it to Alice alone and says so where she asked", async () => {
    const { holds, told, audit } = stand("private", excludes);
    const shown = await holdIfQuoting(holds, quoting, state);
    expect(shown).toMatchObject({
      held: { action: "private" },
      answer: expect.stringContaining("I sent my answer to <@U0ALICE> privately"),
    });
    expect(told).toEqual([{ text: expect.stringContaining(secret) }]);
    expect(audit).toMatchObject([{ kind: "answer_held", outcome: "sent privately" }]);
  });

  it("allow: posts it, whoever can see what", async () => {
    const { holds, told } = stand("allow", excludes);
    expect(await holdIfQuoting(holds, quoting, state)).toBe(quoting);
    expect(told).toEqual([]);
  });

  it("holds when the platform could not say who can see the channel", async () => {
    const { holds } = stand("ask", { C0GENERAL: general, C0BOARD: { kind: "unknown", why: "missing_scope" } });
    expect(await holdIfQuoting(holds, quoting, state)).toMatchObject({ held: { places: ["C0BOARD"] } });
  });

  it("holds nothing on the console: one person, no channel", async () => {
    const { holds } = stand("ask", excludes);
    const consoleState = { ...state, origin: { ...origin, surface: "console" as const } };
    expect(await holdIfQuoting(holds, quoting, consoleState)).toBe(quoting);
  });
});

describe("mayHold, which decides whether the answer's text may stream", () => {
  it("is true after a read of a channel other than where the answer goes, in ask and private", () => {
    expect(mayHold(stand("ask", {}).holds, origin, ["C0GENERAL", "C0BOARD"])).toBe(true);
    expect(mayHold(stand("private", {}).holds, origin, ["C0BOARD"])).toBe(true);
  });

  it("is false after reads of the destination alone, with allow, and on the console", () => {
    expect(mayHold(stand("ask", {}).holds, origin, ["C0GENERAL"])).toBe(false);
    expect(mayHold(stand("allow", {}).holds, origin, ["C0BOARD"])).toBe(false);
    expect(mayHold(stand("ask", {}).holds, { ...origin, surface: "console" }, ["C0BOARD"])).toBe(false);
  });
});

describe("chooseHeld", () => {
  const alice = { id: "U0ALICE" };

  it.each([
    ["post", "Posted.", [secret], 1],
    ["private", "Sent to you by direct message.", [], 2],
    ["drop", "Dropped: it was not posted.", [], 1],
  ] as const)("%s: does it once and audits the choice", async (choice, reply, posted, tells) => {
    const stood = stand("ask", excludes);
    await holdIfQuoting(stood.holds, quoting, state);
    expect(await chooseHeld(stood.holds, "run_h", choice, alice)).toBe(reply);
    expect(stood.posted.map((text) => (text.includes(secret) ? secret : text))).toEqual(posted);
    expect(stood.told).toHaveLength(tells);
    expect(stood.audit.at(-1)).toMatchObject({ kind: "answer_held", outcome: choice, decidedBy: alice });
    expect(await chooseHeld(stood.holds, "run_h", "post", alice)).toContain("no longer held");
    expect(stood.posted).toHaveLength(posted.length);
  });

  it("says the answer was shown to her where she asked when no direct message could go", async () => {
    const stood = stand("ask", excludes, mapStore(), "here, to them alone");
    await holdIfQuoting(stood.holds, quoting, state);
    expect(await chooseHeld(stood.holds, "run_h", "private", alice)).toBe("Sent to you where you asked, shown to you alone.");
  });

  it("lets only the requester choose, and keeps the answer for her", async () => {
    const stood = stand("ask", excludes);
    await holdIfQuoting(stood.holds, quoting, state);
    expect(await chooseHeld(stood.holds, "run_h", "post", { id: "U0EVE" })).toContain("Only the person who asked");
    expect(stood.posted).toEqual([]);
    expect(await chooseHeld(stood.holds, "run_h", "post", alice)).toBe("Posted.");
  });

  it("a restart while it waits posts nothing; the choice still works from the store afterwards", async () => {
    const before = stand("ask", excludes);
    await holdIfQuoting(before.holds, quoting, state);
    const after = stand("ask", excludes, before.store);
    expect(after.posted).toEqual([]);
    expect(await chooseHeld(after.holds, "run_h", "post", alice)).toBe("Posted.");
    expect(after.posted).toEqual([expect.stringContaining(secret)]);
  });
});
