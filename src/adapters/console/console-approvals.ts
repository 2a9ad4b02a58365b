// The console's approvals, asked at its prompt: `approve? [y/N]` for a write of the person's own
// turn, for one a stopped process left, and for a run no turn waits for (a schedule's slot) once
// the session is free (slot-approvals.ts). The answer is a click on the core's decision flow
// (core/decisions.ts), which applies it once; an approval the core settles as expired, or Ctrl-C,
// ends the question.
import type { PendingApproval } from "../../contracts/types.js";
import type { DecisionClick } from "../core/inbound.js";
import type { Spot } from "../core/spot.js";
import { isApproval } from "./console-commands.js";
import type { ConsoleOutput } from "./console-output.js";
import { refOf, type ConsoleClicked, type ConsoleRef } from "./console-refs.js";
import { approvalRequest, connectLine } from "./console-text.js";
import type { LineQueue } from "./line-queue.js";
import { createSlotApprovals, type SlotApprovals } from "./slot-approvals.js";

const APPROVE_PROMPT = "approve? [y/N] ";
const LEFT_UNDECIDED = "\n(Left undecided: it is asked again at the next start, until it expires.)";

/** What came of a question: a decision went to the core, it expired while asked, or the session stopped first. */
export type Asked = "decided" | "expired" | "left";

export interface ConsoleApprovalsDeps {
  readonly out: ConsoleOutput;
  readonly lines: LineQueue;
  /** Where the decision on a run no turn waits for is made: the console's person, outside any turn. */
  readonly here: Spot;
  /** The core's decision flow. Never rejects. */
  decide(click: DecisionClick<ConsoleClicked>): Promise<void>;
  /** Draws a prompt (the terminal's readline, or plain text). */
  prompt(text: string): void;
  /** Shows the main prompt again when the session waits at it. */
  promptIfIdle(): void;
  /** The session is at its prompt and free for a slot's approval. */
  free(): boolean;
  stopped(): boolean;
}

export interface ConsoleApprovals {
  /** Asks about `pending` and hands the answer to the core as a click at `at`. Never rejects. */
  ask(pending: PendingApproval, at: Spot): Promise<Asked>;
  /** The core settled this approval as expired: it is asked no more; true when it was on screen. */
  expired(ref: ConsoleRef): boolean;
  /** A question is on screen. */
  asking(): boolean;
  /** Ctrl-C while asking: denied. */
  deny(): void;
  /** Approvals of runs no turn waits for, asked when the session is free. */
  readonly slots: SlotApprovals;
}

export function createConsoleApprovals(deps: ConsoleApprovalsDeps): ConsoleApprovals {
  const { out, lines } = deps;
  /** The approval asked now: `expired` when the core settled it meanwhile, `denied` by Ctrl-C. */
  let waiting: { readonly ref: ConsoleRef; readonly expired: AbortController; readonly denied: AbortController } | undefined;

  async function ask(pending: PendingApproval, at: Spot): Promise<Asked> {
    // A run waiting for a connection asks nothing here: the person opens the link, and the run goes on by itself
    // (shown between the person's lines), while the prompt is theirs again.
    if (pending.connect) {
      out.line(connectLine(pending.connect));
      return "left";
    }
    out.line(approvalRequest(pending));
    const expired = new AbortController();
    const denied = new AbortController();
    waiting = { ref: refOf(pending), expired, denied };
    deps.prompt(APPROVE_PROMPT);
    const answer = await lines.nextFresh(AbortSignal.any([expired.signal, denied.signal]));
    waiting = undefined;
    if (expired.signal.aborted) return "expired";
    if (deps.stopped()) {
      out.line(LEFT_UNDECIDED);
      return "left";
    }
    if (denied.signal.aborted) out.line("(Ctrl-C: denied.)");
    else if (answer === undefined) out.line("\n(No answer: denied.)");
    else if (!out.isTerminal) out.line(answer);
    const decision = answer !== undefined && isApproval(answer) ? "approve" : "deny";
    await deps.decide({ at, clicked: { approval: pending }, runId: pending.runId, callId: pending.callId, decision });
    return "decided";
  }

  // What the decision leads to shows through the run's display; the prompt comes back once it is asked.
  const slots = createSlotApprovals(
    (pending) => ask(pending, deps.here).then(() => deps.promptIfIdle()),
    () => deps.free() && !waiting && !deps.stopped(),
  );

  return {
    ask,
    expired(ref) {
      slots.drop(ref.runId);
      if (waiting?.ref.runId !== ref.runId || waiting.ref.callId !== ref.callId) return false;
      waiting.expired.abort();
      return true;
    },
    asking: () => waiting !== undefined,
    deny: () => waiting?.denied.abort(),
    slots,
  };
}
