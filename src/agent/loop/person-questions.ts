// A running call's tool asks the run's requester (an MCP server's form): the form is kept where
// any process can answer it, shown through the run's events, and waited for while the run's
// deadline stands still. Whatever happens the tool gets an answer: a form that can't be kept is
// a cancel ("unavailable"), and the wait itself never rejects.
import type { AgentEvent, FormAnswer, FormNote, FormQuestion, PersonForms, TaskOrigin } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";

/** What a call's tool is given to ask with; `signal` ends the wait (a Stop, the deadline) with a cancel. */
export type CallAsker = (
  question: FormQuestion,
  callId: string,
  signal: AbortSignal,
  withdrawn?: AbortSignal,
) => Promise<{ readonly answer: FormAnswer; readonly note: FormNote }>;

export interface AskerDeps {
  readonly forms: PersonForms;
  readonly run: { readonly runId: string; readonly origin: TaskOrigin };
  readonly step: number;
  readonly emit: (event: AgentEvent) => void;
  /** Stops the run's deadline until the returned release is called. */
  readonly hold: () => () => void;
  readonly logger: Logger;
}

export function noteOf(question: FormQuestion, answer: FormAnswer, waitedMs: number): FormNote {
  return {
    server: question.server,
    kind: question.kind,
    action: answer.action,
    ...(answer.action === "cancel" ? { reason: answer.reason } : {}),
    ...(answer.by ? { by: answer.by } : {}),
    waitedMs: Math.round(waitedMs),
  };
}

export function callAsker(deps: AskerDeps): CallAsker {
  const { forms, run, step, emit, logger } = deps;
  return async (question, callId, signal, withdrawn) => {
    const release = deps.hold();
    const started = performance.now();
    try {
      let form: Awaited<ReturnType<PersonForms["open"]>>;
      try {
        form = await forms.open(question, { runId: run.runId, callId, origin: run.origin });
      } catch (error) {
        logger.warn({ err: error, runId: run.runId, server: question.server }, "could not keep a server's question; it is cancelled");
        const answer: FormAnswer = { action: "cancel", reason: "unavailable" };
        return { answer, note: noteOf(question, answer, performance.now() - started) };
      }
      emit({ type: "form_asked", runId: run.runId, step, form });
      const answer = await forms.wait(form, signal, withdrawn);
      const note = noteOf(question, answer, performance.now() - started);
      emit({ type: "form_answered", runId: run.runId, step, form, note });
      return { answer, note };
    } finally {
      release();
    }
  };
}
