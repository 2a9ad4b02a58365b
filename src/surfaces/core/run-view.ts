// One run on any surface: its events become the newest progress (status and tasks), shown at
// most once per the display's interval; then the outcome: the answer (with 👍 / 👎 and the
// trace), or the approval request, whose place is kept so an expiry or a late click on any
// process can update it.
import type { RunOutcome } from "../../agent/types.js";
import type { Deciders } from "../../governance/authority.js";
import type { Logger } from "../../logger.js";
import type { RunPresenter } from "../../runs/service.js";
import type { ApprovalRefs } from "./approval-refs.js";
import { statusFor, taskUpdatesFor, type Progress, type StatusCard, type TaskUpdate } from "./cards.js";
import type { RunDisplay } from "./surface.js";
import { createThrottledWriter } from "./throttled-writer.js";

export interface RunViewDeps<Ref> {
  readonly logger: Logger;
  readonly refs: ApprovalRefs<Ref>;
  readonly deciders: Deciders;
  readonly question: string;
}

export interface RunView extends RunPresenter {
  /** Shows that work started, before the run's first event. */
  begin(): void;
}

export function createRunView<Ref>(display: RunDisplay<Ref>, deps: RunViewDeps<Ref>): RunView {
  const { logger } = deps;
  let runId: string | undefined;
  let status: StatusCard = { kind: "working" };
  const tasks = new Map<string, TaskUpdate>();
  const progress = createThrottledWriter<Progress>((state) => display.progress(state), {
    minIntervalMs: display.progressIntervalMs,
    onError: (error) => logger.warn({ err: error }, "could not show a run's progress"),
  });
  const show = () => progress.push({ ...(runId ? { runId } : {}), status, tasks: [...tasks.values()] });

  return {
    sink(event) {
      runId ??= event.runId;
      const next = statusFor(event);
      const updates = taskUpdatesFor(event);
      if (next === undefined && updates.length === 0) return;
      if (next) status = next;
      for (const update of updates) tasks.set(update.id, update);
      show();
    },
    begin: show,
    async finish(outcome: RunOutcome) {
      await progress.close();
      await display.endProgress(outcome);
      if (outcome.status === "answered") {
        const { runId: id, answer, stop, steps } = outcome;
        return display.answer({ runId: id, answer, steps, question: deps.question, ...(stop ? { stop } : {}) });
      }
      const ref = await display.approval({ pending: outcome.pending, deciders: deps.deciders });
      if (ref === undefined) return undefined;
      await deps.refs.remember(outcome.pending, ref);
      return {};
    },
    async fail(error) {
      logger.error({ err: error, runId }, "the run failed without an answer");
      await progress.close();
      await display.failure();
    },
  };
}

