// One run on any surface: its events become the newest progress (status, tasks, and what the
// model writes as it streams: answer-draft.ts, until the run reads a channel), shown at most once per the display's interval;
// then the outcome: the answer (completing the text that streamed, with 👍 / 👎 and the trace),
// or the approval request, whose place is kept so an expiry or a late click on any process can
// update it. The messages the display holds open are kept in the store while they are open, and
// the threads where its writes may start a stream while they go on (recorded before the first
// one), so a process that takes the run over after a crash ends them before it shows anything.
import type { PendingApproval, RunOutcome } from "../../contracts/types.js";
import type { Deciders } from "../../governance/authority.js";
import type { Logger } from "../../logger.js";
import { UNPOSTED, type RunPresenter } from "../../runs/api/presenting.js";
import { answerFilesOf, withFileNotes, type AnswerFileSource } from "./answer-files.js";
import { answerShown, draftAfter, EMPTY_DRAFT, liveSegment, sealedDraft, showsText, type Draft } from "./answer-draft.js";
import type { ApprovalRefs } from "./approval-refs.js";
import { statusFor, taskUpdatesFor, type Progress, type StatusCard, type TaskUpdate } from "./cards.js";
import type { RunDisplay, TextFormat } from "./surface.js";
import { NOTHING_TO_REPORT } from "./texts.js";
import { createThrottledWriter, timerSleep, type ThrottledWriterOptions } from "./throttled-writer.js";
import { isOpenMessage, type UnfinishedMessages } from "./unfinished-messages.js";

export interface RunViewDeps<Ref> {
  readonly logger: Logger;
  readonly refs: ApprovalRefs<Ref>;
  readonly deciders: Deciders;
  readonly question: string;
  /** Where the answer's files come from, on a surface that posts them; and how their notes are written. */
  readonly files?: { readonly source: AnswerFileSource; readonly format: TextFormat };
  /** Where the display's open messages are kept; without it a crash may leave one looking unfinished. */
  readonly unfinished?: UnfinishedMessages;
  /** The clock the writes are paced by (tests move it). */
  readonly clock?: Pick<ThrottledWriterOptions<unknown>, "now" | "sleep">;
  /** A run that waits for its requester to connect an MCP server: its Connect link, told to them alone. Never throws. */
  readonly connect?: (pending: PendingApproval) => Promise<void>;
  /** Whether the answer after reads of these channels may be held (runs/holds); without it, any read may. */
  readonly mayHold?: (channels: readonly string[]) => boolean;
}

export interface RunView extends RunPresenter {
  /** Shows that work started, before the run's first event. */
  begin(): void;
}

const NEVER = new AbortController().signal;

/** The line a quiet end leaves where the run's work showed: a deleted question says so. */
const quietLine = (outcome: RunOutcome): string =>
  outcome.status === "answered" && outcome.stop?.guard === "question_deleted" ? outcome.stop.sentence : NOTHING_TO_REPORT;

export function createRunView<Ref>(display: RunDisplay<Ref>, deps: RunViewDeps<Ref>): RunView {
  const { logger } = deps;
  const now = deps.clock?.now ?? Date.now;
  let runId: string | undefined;
  /** From the run's first step on: its Stop button can stop it then. */
  let stoppable: string | undefined;
  let status: StatusCard = { kind: "working" };
  const tasks = new Map<string, TaskUpdate>();
  let draft: Draft = EMPTY_DRAFT;
  /**
   * The run read a channel whose quotes may hold its answer (the loop names the channels read at each step after such a
   * read, also after a pause or a restart): what the model writes from then on is shown once the answer's hold has looked
   * at it (runs/holds), not as it streams where more people may see it.
   */
  let mayBeHeld = false;
  /** When the display last wrote a draft that showed text: the answer's own write keeps the interval after it. */
  let draftShownAt: number | undefined;
  /** What the store says the display holds open, as JSON; undefined: the next save writes whatever it is. */
  let savedOpen: string | undefined = "[]";
  /** The run's outcome was shown: no write of the display starts a stream any more. */
  let writesOver = false;
  const warn = (error: unknown) => logger.warn({ err: error }, "could not show a run's progress");
  // Every write goes through one chain, so the display never gets two at the same time.
  let chain: Promise<void> = Promise.resolve();
  const enqueue = (work: () => Promise<void>) => (chain = chain.catch(() => undefined).then(work));
  const write = (state: Progress) =>
    enqueue(async () => {
      await display.progress(state).finally(() => {
        if (showsText(state.draft)) draftShownAt = now();
      });
      await saveOpen();
    });
  const progress = createThrottledWriter<Progress>(write, {
    minIntervalMs: display.progressIntervalMs,
    onError: warn,
    ...(deps.clock ?? {}),
  });
  const current = (): Progress => ({ ...(stoppable ? { runId: stoppable } : {}), status, tasks: [...tasks.values()], draft });
  const show = () => progress.push(current());

  async function saveOpen(): Promise<void> {
    if (!deps.unfinished || !display.unfinished || runId === undefined) return;
    const open = writesOver ? display.unfinished().filter(isOpenMessage) : display.unfinished();
    const json = JSON.stringify(open);
    if (json === savedOpen) return;
    savedOpen = json;
    await deps.unfinished.save(runId, open);
  }

  /**
   * A process that died during this run left messages open: they are ended before this one shows anything. Then, still
   * before its first write, this view's record replaces that one: it names where the display's streams may start.
   */
  function settleLeftBehind(id: string): void {
    const { unfinished } = deps;
    if (!unfinished || !display.settleUnfinished) return;
    enqueue(async () => {
      const left = await unfinished.read(id);
      if (left.length > 0) {
        await display.settleUnfinished!(left);
        savedOpen = undefined;
      }
      await saveOpen();
    }).catch(warn);
  }

  /** The outcome is shown: what stays open is recorded, the threads where streams could start no more. */
  async function saveLastOpen(): Promise<void> {
    writesOver = true;
    await saveOpen();
  }

  /** Waits out the display's interval after the last draft it showed, so no message is edited twice within it. */
  async function paced(): Promise<void> {
    const wait = draftShownAt === undefined ? 0 : draftShownAt + display.progressIntervalMs - now();
    if (wait > 0) await (deps.clock?.sleep ?? timerSleep)(wait, NEVER);
  }

  /** The progress writes end; the display's progress ends with `last` (its draft as the outcome leaves it). */
  async function endWrites(outcome: RunOutcome, last: Progress): Promise<void> {
    await progress.close();
    await chain.catch(() => undefined);
    await paced();
    await display.endProgress(outcome, last).catch((error: unknown) => logger.warn({ err: error }, "could not end a run's progress"));
  }

  return {
    sink(event) {
      display.event?.(event);
      if (runId === undefined) {
        runId = event.runId;
        settleLeftBehind(runId);
      }
      if (event.type === "step_started") stoppable ??= event.runId;
      if (event.type === "form_asked" && display.form) {
        const shown = display.form(event.form);
        enqueue(() => shown).catch(warn);
      }
      if (event.type === "step_started" && event.channelsRead && !mayBeHeld) mayBeHeld = deps.mayHold?.(event.channelsRead) ?? true;
      const before = draft;
      if (!mayBeHeld) draft = draftAfter(draft, event);
      const next = statusFor(event);
      const updates = taskUpdatesFor(event);
      if (draft !== before) display.draft?.(draft);
      if (next === undefined && updates.length === 0 && draft === before) return;
      const firstTask = tasks.size === 0 && updates.length > 0;
      const firstText = !showsText(before) && showsText(draft);
      if (next) status = next;
      for (const update of updates) tasks.set(update.id, update);
      if ((firstTask || firstText) && display.firstsAtOnce) progress.pushNow(current());
      else show();
    },
    begin() {
      if (display.begin) display.begin();
      else show();
    },
    async finish(outcome: RunOutcome) {
      // An answer completes the live text; anything else leaves what streamed as it stands.
      await endWrites(outcome, { ...current(), draft: outcome.status === "answered" ? draft : sealedDraft(draft) });
      try {
        if (outcome.status === "answered") return await showAnswer(outcome);
        const { pending } = outcome;
        // Nothing to approve: only the requester gets the link, privately.
        if (pending.connect && deps.connect) return void (await deps.connect(pending));
        const ref = await display.approval({ pending, deciders: deps.deciders }).catch((error: unknown) => {
          logger.error({ err: error, runId: pending.runId, tool: pending.tool }, "could not post the approval request");
          return undefined;
        });
        if (ref !== undefined) await deps.refs.remember(pending, ref);
        return undefined;
      } finally {
        await saveLastOpen();
      }
    },
    async settleQuietly(outcome) {
      await endWrites(outcome, { ...current(), draft: sealedDraft(draft) });
      // Nothing showed (no tool call): nothing is posted. Its work showed: it ends in a line rather than "working…" for ever.
      if (tasks.size > 0 && outcome.status === "answered")
        await display
          .answer({ runId: outcome.runId, answer: quietLine(outcome), steps: outcome.steps, question: deps.question })
          .catch((error: unknown) => logger.warn({ err: error }, "could not end a quiet run's progress"));
      await saveLastOpen();
    },
    ...(display.findAnswer ? { findAnswer: (id: string) => display.findAnswer!(id) } : {}),
    async fail(error) {
      logger.error({ err: error, runId }, "the run failed without an answer");
      await progress.close();
      await chain.catch(() => undefined);
      if (liveSegment(draft)) await write({ ...current(), draft: sealedDraft(draft) }).catch(warn);
      await display.failure().catch((failure: unknown) => logger.error({ err: failure, runId }, "could not say the run failed"));
      await saveLastOpen();
    },
  };

  async function showAnswer(outcome: Extract<RunOutcome, { status: "answered" }>) {
    const { runId: id, stop, steps } = outcome;
    const attached =
      deps.files && outcome.files?.length ? await answerFilesOf(outcome.files, deps.files.source, deps.files.format) : undefined;
    const answer = withFileNotes(answerShown(draft, outcome), attached?.notes ?? []);
    const files = attached?.files.length ? { files: attached.files } : {};
    try {
      return (await display.answer({ runId: id, answer, steps, question: deps.question, ...(stop ? { stop } : {}), ...files })) ?? UNPOSTED;
    } catch (error) {
      logger.error({ err: error, runId: id, answer }, "could not post the answer; it is in this log line");
      return UNPOSTED;
    }
  }
}
