// How a run no prompt waits for shows in the console: a schedule's slot, fired while the person
// types or reads. It prints when it starts and when it answers, between the person's own lines;
// a write it asks for is handed to the prompt (slot-approvals.ts), which asks its owner, the
// console's person.
import type { PendingApproval } from "../../contracts/types.js";
import type { DisplayRequest, RunDisplay } from "../core/surface.js";
import { RUN_FAILED } from "../core/texts.js";
import { clean } from "./console-text.js";

const PROGRESS_INTERVAL_MS = 1_000;

function headingOf(request: DisplayRequest<unknown>): string {
  const slot = request.origin.schedule;
  const first = clean(request.question.split("\n")[0] ?? "").slice(0, 120);
  return slot ? `⏰ Schedule ${slot.scheduleId}: ${first}` : `Run: ${first}`;
}

/** `notice` prints a block of lines between the person's own (and draws the prompt again); `approval` asks at the prompt. */
export function createConsoleDisplay(
  notice: (text: string) => void,
  approval: (pending: PendingApproval) => void,
): (request: DisplayRequest<unknown>) => RunDisplay<never> {
  return (request) => {
    const heading = headingOf(request);
    return {
      progressIntervalMs: PROGRESS_INTERVAL_MS,
      begin: () => notice(`${heading} (running…)`),
      progress: async () => {},
      endProgress: async () => {},
      async answer(card) {
        const stop = card.stop ? `\n(${card.stop.sentence})` : "";
        notice(`${heading}\n${clean(card.answer)}${stop}`);
        return { messageId: `console:${card.runId}` };
      },
      async approval(card) {
        notice(`${heading}\n(It needs your approval for a write.)`);
        approval(card.pending);
        return undefined;
      },
      failure: async () => notice(`${heading}\n${RUN_FAILED}`),
    };
  };
}
