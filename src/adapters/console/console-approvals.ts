// The console's approvals, asked at its prompt: `approve? [y/N]` for a write of the person's own
// run, for a schedule's slot once the session is free (slot-approvals.ts), and for one a stopped
// process left. An approval that expires elsewhere, or Ctrl-C, ends the question.
import type { Logger } from "../../logger.js";
import type { EventSink, PendingApproval, RunOutcome, StepRecord } from "../../contracts/types.js";
import type { AgentService } from "../../runs/api/agent-service.js";
import { isApproval } from "./console-commands.js";
import type { ConsoleOutput } from "./console-output.js";
import { approvalRequest, decisionText, expiredText } from "./console-text.js";
import type { LineQueue } from "./line-queue.js";
import { createSlotApprovals, type SlotApprovals } from "./slot-approvals.js";

const APPROVE_PROMPT = "approve? [y/N] ";

export interface ConsoleApprovalsDeps {
  readonly service: AgentService;
  readonly out: ConsoleOutput;
  readonly lines: LineQueue;
  readonly requester: { readonly id: string; readonly name: string };
  readonly sink: EventSink;
  readonly logger: Logger;
  /** Draws a prompt (the terminal's readline, or plain text). */
  prompt(text: string): void;
  /** Shows the main prompt again when the session waits at it. */
  promptIfIdle(): void;
  /** The session is at its prompt and free for a slot's approval. */
  free(): boolean;
  stopped(): boolean;
  /** The steps of the run an approval ended, for `/trace`. */
  ended(steps: readonly StepRecord[]): void;
}

export interface ConsoleApprovals {
  /** The person's decision on one write call; undefined when there is nothing more to show. */
  ask(pending: PendingApproval): Promise<RunOutcome | undefined>;
  /** An approval expired elsewhere: the question, if it is being asked, ends. */
  expired(pending: PendingApproval, outcome: RunOutcome): void;
  /** A question is on screen. */
  asking(): boolean;
  /** Ctrl-C while asking: denied. */
  deny(): void;
  readonly slots: SlotApprovals;
}

export function createConsoleApprovals(deps: ConsoleApprovalsDeps): ConsoleApprovals {
  const { service, out, lines, requester, sink } = deps;
  /** The approval asked now: `expired` when its time ran out elsewhere, `denied` by Ctrl-C. */
  let waiting: { readonly runId: string; readonly expired: AbortController; readonly denied: AbortController } | undefined;

  async function ask(pending: PendingApproval): Promise<RunOutcome | undefined> {
    out.line(approvalRequest(pending));
    const expired = new AbortController();
    const denied = new AbortController();
    waiting = { runId: pending.runId, expired, denied };
    deps.prompt(APPROVE_PROMPT);
    const answer = await lines.nextFresh(AbortSignal.any([expired.signal, denied.signal]));
    waiting = undefined;
    if (expired.signal.aborted) return undefined;
    if (deps.stopped()) {
      out.line("\n(Left undecided: it is asked again at the next start, until it expires.)");
      return undefined;
    }
    if (denied.signal.aborted) out.line("(Ctrl-C: denied.)");
    else if (answer === undefined) out.line("\n(No answer: denied.)");
    else if (!out.isTerminal) out.line(answer);
    const decision = answer !== undefined && isApproval(answer) ? "approve" : "deny";
    const result = await service.decide({ runId: pending.runId, callId: pending.callId, decision, decidedBy: requester }, sink);
    if (result.kind === "resumed" || result.kind === "expired") return result.outcome;
    out.line(decisionText(result));
    return undefined;
  }

  // A slot's run shows the rest through the display once decided; a failure to decide is the log's.
  const slots = createSlotApprovals(
    (pending) =>
      ask(pending).then(
        () => deps.promptIfIdle(),
        (error: unknown) => deps.logger.error({ err: error, runId: pending.runId }, "could not decide a schedule's approval"),
      ),
    () => deps.free() && !waiting && !deps.stopped(),
  );

  return {
    ask,
    expired(pending, outcome) {
      slots.drop(pending.runId);
      if (waiting?.runId === pending.runId) waiting.expired.abort();
      deps.ended(outcome.steps);
      out.line(`\n${expiredText(pending, outcome)}\n`);
      deps.promptIfIdle();
    },
    asking: () => waiting !== undefined,
    deny: () => waiting?.denied.abort(),
    slots,
  };
}
