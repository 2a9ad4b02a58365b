// A typed line's turn. The line goes to the core with a reply handle of its own, and what the core
// shows for that handle belongs to the turn: its run's transcript and answer, the approval its run
// waits for (and the expiry shown below that approval), or a note in the run's place (a refusal,
// "try again"). The session waits for the turn to end before it prompts again, so the transcript
// reads in order; what comes for a turn that is over (a run the last session left, a decision that
// could not go on at once) shows between the person's lines, as a schedule's run does.
import { randomUUID } from "node:crypto";
import type { PendingApproval } from "../../contracts/types.js";
import type { ReplyHandle } from "../../runs/api/task.js";

export type TurnStep =
  /** Its answer, a failure or a note showed: the prompt comes back. */
  | { readonly kind: "ended" }
  /** Its run waits for a decision on `pending`, asked at the prompt. */
  | { readonly kind: "approval"; readonly pending: PendingApproval };

export interface Turn {
  /** Goes with what the line hands the core. */
  readonly reply: ReplyHandle;
  /** The next step; steps reached while nobody waited are kept in order. */
  next(): Promise<TurnStep>;
  /** The core showed a step of this turn; ignored once it ended. */
  reach(step: TurnStep): void;
  /** The turn's run took a step: from now on Ctrl-C can stop it. */
  working(runId: string): void;
  /** The run Ctrl-C stops now: one that works for this turn and was not asked to stop yet. */
  stoppable(): string | undefined;
  /** Ctrl-C asked `stoppable()` to stop. */
  stopping(): void;
}

export interface Turns {
  /** The turn of a new line (the earlier one is over); `runId`: a paused run it takes up (an approval the last session left). */
  open(runId?: string): Turn;
  /** The turn in progress when `reply` is its handle or `runId` one of its runs; undefined once it is over. */
  find(reply: ReplyHandle | undefined, runId?: string): Turn | undefined;
  /** The turn in progress, if any. */
  current(): Turn | undefined;
}

const LINE = "line";

export function createTurns(): Turns {
  /** The turn in progress, with the runs whose expiry shows in it. */
  let live: { readonly turn: Turn; readonly runs: Set<string> } | undefined;

  function open(runId?: string): Turn {
    const runs = new Set<string>(runId ? [runId] : []);
    const reached: TurnStep[] = [];
    let waiter: ((step: TurnStep) => void) | undefined;
    let running: { readonly runId: string; stopping: boolean } | undefined;
    const turn: Turn = {
      reply: { [LINE]: randomUUID() },
      next() {
        const step = reached.shift();
        if (step) return Promise.resolve(step);
        return new Promise((resolve) => (waiter = resolve));
      },
      reach(step) {
        if (live?.turn !== turn) return;
        if (step.kind === "ended") live = undefined;
        else runs.add(step.pending.runId);
        running = undefined;
        const waiting = waiter;
        waiter = undefined;
        if (waiting) waiting(step);
        else reached.push(step);
      },
      working(runId) {
        if (running?.runId !== runId) running = { runId, stopping: false };
      },
      stoppable: () => (live?.turn === turn && running && !running.stopping ? running.runId : undefined),
      stopping() {
        if (running) running.stopping = true;
      },
    };
    live = { turn, runs };
    return turn;
  }

  return {
    open,
    find(reply, runId) {
      if (!live) return undefined;
      const byReply = reply !== undefined && reply[LINE] === live.turn.reply[LINE];
      return byReply || (runId !== undefined && live.runs.has(runId)) ? live.turn : undefined;
    },
    current: () => live?.turn,
  };
}
