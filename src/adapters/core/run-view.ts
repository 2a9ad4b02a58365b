// One run on any surface: its events become the newest progress (status and tasks), shown at
// most once per the display's interval; then the outcome: the answer (with 👍 / 👎 and the
// trace), or the approval request, whose place is kept so an expiry or a late click on any
// process can update it.
import type { RunOutcome } from "../../contracts/types.js";
import type { Deciders } from "../../governance/authority.js";
import type { Logger } from "../../logger.js";
import { UNPOSTED, type RunPresenter } from "../../runs/api/presenting.js";
import { answerFilesOf, withFileNotes, type AnswerFileSource } from "./answer-files.js";
import type { ApprovalRefs } from "./approval-refs.js";
import { statusFor, taskUpdatesFor, type Progress, type StatusCard, type TaskUpdate } from "./cards.js";
import type { RunDisplay, TextFormat } from "./surface.js";
import { NOTHING_TO_REPORT } from "./texts.js";
import { createThrottledWriter } from "./throttled-writer.js";

export interface RunViewDeps<Ref> {
  readonly logger: Logger;
  readonly refs: ApprovalRefs<Ref>;
  readonly deciders: Deciders;
  readonly question: string;
  /** Where the answer's files come from, on a surface that posts them; and how their notes are written. */
  readonly files?: { readonly source: AnswerFileSource; readonly format: TextFormat };
}

export interface RunView extends RunPresenter {
  /** Shows that work started, before the run's first event. */
  begin(): void;
}

export function createRunView<Ref>(display: RunDisplay<Ref>, deps: RunViewDeps<Ref>): RunView {
  const { logger } = deps;
  let runId: string | undefined;
  /** From the run's first step on: its Stop button can stop it then. */
  let stoppable: string | undefined;
  let status: StatusCard = { kind: "working" };
  const tasks = new Map<string, TaskUpdate>();
  const warn = (error: unknown) => logger.warn({ err: error }, "could not show a run's progress");
  // Every write goes through one chain, so the display never gets two at the same time.
  let chain: Promise<void> = Promise.resolve();
  const write = (state: Progress) => (chain = chain.catch(() => undefined).then(() => display.progress(state)));
  const progress = createThrottledWriter<Progress>(write, { minIntervalMs: display.progressIntervalMs, onError: warn });
  const current = (): Progress => ({ ...(stoppable ? { runId: stoppable } : {}), status, tasks: [...tasks.values()] });
  const show = () => progress.push(current());

  return {
    sink(event) {
      display.event?.(event);
      runId ??= event.runId;
      if (event.type === "step_started") stoppable ??= event.runId;
      const next = statusFor(event);
      const updates = taskUpdatesFor(event);
      if (next === undefined && updates.length === 0) return;
      // The first tool call shows at once, without waiting out the interval.
      const firstTask = tasks.size === 0 && updates.length > 0;
      if (next) status = next;
      for (const update of updates) tasks.set(update.id, update);
      if (firstTask) write(current()).catch(warn);
      else show();
    },
    begin() {
      if (display.begin) display.begin();
      else show();
    },
    async finish(outcome: RunOutcome) {
      await progress.close();
      await chain.catch(() => undefined);
      await display
        .endProgress(outcome, current())
        .catch((error: unknown) => logger.warn({ err: error }, "could not end a run's progress"));
      if (outcome.status === "answered") {
        const { runId: id, stop, steps } = outcome;
        const attached =
          deps.files && outcome.files?.length ? await answerFilesOf(outcome.files, deps.files.source, deps.files.format) : undefined;
        const answer = withFileNotes(outcome.answer, attached?.notes ?? []);
        const files = attached?.files.length ? { files: attached.files } : {};
        try {
          return (
            (await display.answer({ runId: id, answer, steps, question: deps.question, ...(stop ? { stop } : {}), ...files })) ?? UNPOSTED
          );
        } catch (error) {
          logger.error({ err: error, runId: id, answer }, "could not post the answer; it is in this log line");
          return UNPOSTED;
        }
      }
      const { pending } = outcome;
      const ref = await display.approval({ pending, deciders: deps.deciders }).catch((error: unknown) => {
        logger.error({ err: error, runId: pending.runId, tool: pending.tool }, "could not post the approval request");
        return undefined;
      });
      if (ref !== undefined) await deps.refs.remember(pending, ref);
      return undefined;
    },
    async settleQuietly(outcome) {
      await progress.close();
      await chain.catch(() => undefined);
      await display
        .endProgress(outcome, current())
        .catch((error: unknown) => logger.warn({ err: error }, "could not end a run's progress"));
      // Nothing showed (no tool call): nothing is posted. Its work showed: it ends in a line rather than "working…" for ever.
      if (tasks.size === 0 || outcome.status !== "answered") return;
      await display
        .answer({ runId: outcome.runId, answer: NOTHING_TO_REPORT, steps: outcome.steps, question: deps.question })
        .catch((error: unknown) => logger.warn({ err: error }, "could not end a quiet run's progress"));
    },
    ...(display.findAnswer ? { findAnswer: (id: string) => display.findAnswer!(id) } : {}),
    async fail(error) {
      logger.error({ err: error, runId }, "the run failed without an answer");
      await progress.close();
      await chain.catch(() => undefined);
      await display.failure().catch((failure: unknown) => logger.error({ err: failure, runId }, "could not say the run failed"));
    },
  };
}
