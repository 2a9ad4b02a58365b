// Run states as tests write them into the stores: the smallest valid RunState, with what a test
// varies (its messages, steps, pending step, run id) given, and a paused run (its state and the
// write it waits on) as the approval store keeps it.
import { emptyGuardCounters, type PendingStep, type RunState } from "../../src/agent/loop/run-state.js";
import type { ChatMessage, StepRecord, TaskOrigin } from "../../src/contracts/types.js";
import type { StoredRun } from "../../src/runs/approvals/approval-store.js";

/** Alice's console conversation `console:<name>`. */
export const consoleOrigin = (name: string): TaskOrigin => ({
  surface: "console",
  conversationKey: `console:${name}`,
  requester: { id: "alice" },
  place: {},
});

/** A run of Alice's question "q"; its usage and time are not zero, so a load that drops them shows. */
export function runState(
  parts: {
    readonly messages?: readonly ChatMessage[];
    readonly steps?: readonly StepRecord[];
    readonly pending?: PendingStep;
    readonly runId?: string;
    readonly origin?: TaskOrigin;
  } = {},
): RunState {
  return {
    version: 1,
    runId: parts.runId ?? "run1",
    origin: parts.origin ?? consoleOrigin("x"),
    question: "q",
    messages: parts.messages ?? [],
    steps: parts.steps ?? [],
    guards: emptyGuardCounters,
    usage: { promptTokens: 1, completionTokens: 2 },
    elapsedMs: 5,
    ...(parts.pending ? { pending: parts.pending } : {}),
  };
}

/** A step that took a millisecond, said nothing and called nothing. */
export const emptyStep = (index: number): StepRecord => ({ index, startedAt: 1, durationMs: 1, text: null, calls: [] });

/** Run `runId` in conversation `console:<conversation>`, paused on post_note until `expiresAt`. */
export function pausedRun(runId: string, expiresAt: number, conversation = runId): StoredRun {
  const origin = consoleOrigin(conversation);
  return {
    state: runState({ runId, origin }),
    pending: { runId, callId: "w1", tool: "post_note", args: { text: "hi" }, requester: { id: "alice" }, origin, expiresAt },
  };
}
