// A typed line's turn: what the core shows for its reply handle (or below an approval of one of its
// runs) belongs to it until it ends; steps reached before anyone waits are kept in order; what comes
// for a turn that is over belongs to none; only its working run, once, is Ctrl-C's to stop.
import { describe, expect, it } from "vitest";
import type { PendingApproval } from "../../../src/contracts/types.js";
import { createTurns } from "../../../src/adapters/console/console-turns.js";

const origin = { surface: "console" as const, conversationKey: "console:local", requester: { id: "console" }, place: {} };
const pending = (runId: string): PendingApproval => ({
  runId,
  callId: "call_1",
  tool: "post_note",
  args: {},
  requester: origin.requester,
  origin,
  expiresAt: 0,
});

describe("console turns", () => {
  it("keeps the steps reached before anyone waits, in order, and ends with the first end", async () => {
    const turns = createTurns();
    const turn = turns.open();
    turn.reach({ kind: "approval", pending: pending("run-1") });
    turn.reach({ kind: "ended" });
    turn.reach({ kind: "ended" });
    expect(await turn.next()).toEqual({ kind: "approval", pending: pending("run-1") });
    expect(await turn.next()).toEqual({ kind: "ended" });
    expect(turns.current()).toBeUndefined();
  });

  it("owns what comes for its reply handle, or below an approval of one of its runs, only while it lasts", () => {
    const turns = createTurns();
    const turn = turns.open("run-left");
    expect(turns.find(turn.reply)).toBe(turn);
    expect(turns.find(undefined, "run-left")).toBe(turn);
    expect(turns.find({ line: "another line" }, "run-other")).toBeUndefined();
    turn.reach({ kind: "approval", pending: pending("run-2") });
    expect(turns.find(undefined, "run-2")).toBe(turn);
    turn.reach({ kind: "ended" });
    expect(turns.find(turn.reply, "run-2")).toBeUndefined();
  });

  it("a new line's turn takes over: the earlier one owns nothing and its late steps are dropped", async () => {
    const turns = createTurns();
    const first = turns.open();
    const second = turns.open();
    expect(turns.find(first.reply)).toBeUndefined();
    first.reach({ kind: "ended" });
    second.reach({ kind: "ended" });
    expect(await second.next()).toEqual({ kind: "ended" });
  });

  it("offers its working run to Ctrl-C once, from its first step until it pauses or ends", () => {
    const turns = createTurns();
    const turn = turns.open();
    expect(turn.stoppable()).toBeUndefined();
    turn.working("run-1");
    expect(turn.stoppable()).toBe("run-1");
    turn.stopping();
    expect(turn.stoppable()).toBeUndefined();
    turn.working("run-1");
    expect(turn.stoppable()).toBeUndefined();
    turn.reach({ kind: "approval", pending: pending("run-1") });
    turn.working("run-1");
    expect(turn.stoppable()).toBe("run-1");
    turn.reach({ kind: "ended" });
    expect(turn.stoppable()).toBeUndefined();
  });
});
