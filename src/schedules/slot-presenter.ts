// How a slot's run is shown, around the surface's own presenter: an answer that is exactly
// `[SILENT]` is not shown at all (the scheduled run had nothing to report; a progress it showed
// ends as it stood), and a run fired late says so under its answer: "(late: due 09:00, ran 09:42)".
import type { ScheduledSlot } from "../contracts/types.js";
import type { RunPresenter } from "../runs/api/presenting.js";
import { isSilentAnswer, lateNote } from "./schedule-text.js";

export function slotPresenter(shown: RunPresenter, slot: ScheduledSlot): RunPresenter {
  return {
    sink: shown.sink,
    fail: (error) => shown.fail(error),
    ...(shown.findAnswer ? { findAnswer: shown.findAnswer } : {}),
    async finish(outcome) {
      if (outcome.status === "answered" && isSilentAnswer(outcome.answer)) return void (await shown.settleQuietly?.(outcome));
      if (outcome.status === "answered" && slot.late) return shown.finish({ ...outcome, answer: `${outcome.answer}\n\n${lateNote(slot)}` });
      return shown.finish(outcome);
    },
  };
}
