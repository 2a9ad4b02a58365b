// How a run shows in the console: the core's run view, rendered for a terminal. A run of the turn
// in progress (console-turns.ts) is its transcript: a line per tool call and per context fold as
// its events come, what the model writes printed as it comes (draft-printer.ts), a status line on
// a terminal, then the rest of the answer (its files saved under data/files) or the approval it
// waits for, handed to the prompt. Any other run (a schedule's slot, a question
// the last session left running) prints when it starts and when it answers, between the person's
// own lines; a write it asks for waits until the prompt is free (slot-approvals.ts).
import { fileOutcomeLine } from "../../files/outcome-text.js";
import type { PendingApproval, StepRecord } from "../../contracts/types.js";
import type { DisplayRequest, RunDisplay } from "../core/surface.js";
import { RUN_FAILED } from "../core/texts.js";
import type { FileDesk } from "./console-files.js";
import type { ConsoleOutput } from "./console-output.js";
import { refOf, type ConsoleRef } from "./console-refs.js";
import { answerText, clean, progressLine, statusText, stopLine } from "./console-text.js";
import { createDraftPrinter } from "./draft-printer.js";
import type { Turn, Turns } from "./console-turns.js";
import type { ConsoleForms } from "./console-forms.js";

/** The console renders each event as it comes, so the core's progress has nothing to add. */
const PROGRESS_INTERVAL_MS = 1_000;

export interface ConsoleDisplayDeps {
  readonly out: ConsoleOutput;
  readonly turns: Turns;
  readonly files: FileDesk;
  /** Prints a block of lines between the person's own (and draws the prompt again). */
  between(text: string): void;
  /** A run no turn waits for asks for a write: the prompt asks once it is free. */
  offer(pending: PendingApproval): void;
  /** A turn's run showed its outcome: its steps, and a line per attached file (read, or why not), are what `/trace` shows. */
  shown(steps: readonly StepRecord[], files: readonly string[]): void;
  /** A server's questions to the person, asked at the prompt while the turn's run waits. */
  readonly forms: ConsoleForms;
}

export function createConsoleDisplay(deps: ConsoleDisplayDeps): (request: DisplayRequest<ConsoleRef>) => RunDisplay<ConsoleRef> {
  return (request) => {
    const turn = deps.turns.find(request.reply, request.below?.runId);
    return turn ? transcript(turn, deps) : between(request, deps);
  };
}

function transcript(turn: Turn, deps: ConsoleDisplayDeps): RunDisplay<ConsoleRef> {
  const { out } = deps;
  const drafts = createDraftPrinter(out);
  const fileLines: string[] = [];
  return {
    progressIntervalMs: PROGRESS_INTERVAL_MS,
    event(event) {
      if (event.type === "step_started") turn.working(event.runId);
      if (event.type === "form_answered") deps.forms.closed(event.form.formId);
      if (event.type === "files") fileLines.push(...event.files.map((outcome) => fileOutcomeLine(outcome, clean)));
      const line = progressLine(event);
      const status = line === undefined ? statusText(event) : undefined;
      if (line !== undefined || status !== undefined) drafts.endLine();
      if (line !== undefined) return out.line(line);
      if (status !== undefined) out.status(status);
    },
    draft: (draft) => drafts.print(draft),
    async form(form) {
      drafts.endLine();
      out.clearStatus();
      deps.forms.ask(form);
    },
    progress: async () => {},
    endProgress: async () => out.clearStatus(),
    async answer(card) {
      // What streamed is not printed again: only its rest, then the stop line.
      if (!drafts.finish(clean(card.answer))) out.line(answerText(card));
      else if (card.stop) out.line(stopLine(card.stop));
      for (const line of await deps.files.save(card.files ?? [])) out.line(line);
      deps.shown(card.steps, fileLines);
      turn.reach({ kind: "ended" });
      return { messageId: `console:${card.runId}` };
    },
    async approval(card) {
      turn.reach({ kind: "approval", pending: card.pending });
      return refOf(card.pending);
    },
    async failure() {
      out.line(RUN_FAILED);
      turn.reach({ kind: "ended" });
    },
  };
}

function headingOf(request: DisplayRequest<ConsoleRef>): string {
  const slot = request.origin.schedule;
  const first = clean(request.question.split("\n")[0] ?? "").slice(0, 120);
  return slot ? `⏰ Schedule ${slot.scheduleId}: ${first}` : `Run: ${first}`;
}

function between(request: DisplayRequest<ConsoleRef>, deps: ConsoleDisplayDeps): RunDisplay<ConsoleRef> {
  const heading = headingOf(request);
  return {
    progressIntervalMs: PROGRESS_INTERVAL_MS,
    begin: () => deps.between(`${heading} (running…)`),
    progress: async () => {},
    endProgress: async () => {},
    async answer(card) {
      deps.between(`${heading}\n${answerText(card)}`);
      return { messageId: `console:${card.runId}` };
    },
    event(event) {
      if (event.type === "form_answered") deps.forms.closed(event.form.formId);
    },
    // A run no turn waits for (a schedule's, one the last session left) asks at the prompt too: the next line answers it.
    async form(form) {
      deps.between(heading);
      deps.forms.ask(form);
    },
    async approval(card) {
      deps.between(`${heading}\n(It needs your approval for a write.)`);
      deps.offer(card.pending);
      return refOf(card.pending);
    },
    failure: async () => deps.between(`${heading}\n${RUN_FAILED}`),
  };
}
