// Who shows a run: the caller waiting for it in this process (the console, a click being
// handled here), or else the surface's presenter built from the run's origin, so a worker
// that did not receive the event (another process, or after a restart) can still show progress
// and answer in the right place. With neither there is no one to show it to: the item is not
// run (see canShow), so it is never marked done unseen.
import type { PresenterFactory, RefusalNote, ReplyHandle, RunPresenter } from "./service.js";
import type { EventSink, RunOutcome, Surface, TaskOrigin } from "../contracts/types.js";
import { SurfaceUnavailableError } from "../errors.js";
import { slotPresenter } from "./schedules/slot-presenter.js";

/** A caller in this process waiting for a run's outcome. */
export interface LocalWaiter {
  readonly sink: EventSink;
  resolve(outcome: RunOutcome): void;
  reject(error: unknown): void;
}

export interface Presenters {
  register(surface: Surface, factory: PresenterFactory, refusalNote?: RefusalNote): void;
  /** Registers a waiter under `key`; the promise settles when the work under that key presents. */
  wait(key: string, sink: EventSink): Promise<RunOutcome>;
  /**
   * The local waiter under `key` if there is one, else the surface's presenter for `origin`
   * (answering through `reply`); throws SurfaceUnavailableError when neither is here.
   */
  presenterFor(key: string, origin: TaskOrigin, question: string, reply?: ReplyHandle): RunPresenter;
  /** True when the work under `key` can be shown here: a caller waits for it, or its surface registered a presenter. */
  canShow(key: string, surface: Surface): boolean;
  /**
   * Shows a refusal (access, a limit; `outcome` answers with its text): to the local waiter under
   * `key`, else privately through the surface's refusal note, else as the surface's answer.
   */
  refuse(
    key: string,
    origin: TaskOrigin,
    question: string,
    outcome: Extract<RunOutcome, { status: "answered" }>,
    reply?: ReplyHandle,
  ): Promise<void>;
  /** True when a caller in this process waits under `key`. */
  isWaiting(key: string): boolean;
  /** True when the surface registered a presenter (its runs need no caller waiting). */
  has(surface: Surface): boolean;
}

function waiterPresenter(waiter: LocalWaiter, done: () => void): RunPresenter {
  return {
    sink: waiter.sink,
    async finish(outcome) {
      done();
      waiter.resolve(outcome);
      return undefined;
    },
    async fail(error) {
      done();
      waiter.reject(error);
    },
  };
}

export function createPresenters(): Presenters {
  const factories = new Map<Surface, PresenterFactory>();
  const refusalNotes = new Map<Surface, RefusalNote>();
  const waiters = new Map<string, LocalWaiter>();

  function presenterHere(key: string, origin: TaskOrigin, question: string, reply?: ReplyHandle): RunPresenter {
    const waiter = waiters.get(key);
    if (waiter) return waiterPresenter(waiter, () => waiters.delete(key));
    const factory = factories.get(origin.surface);
    if (!factory) throw new SurfaceUnavailableError(origin.surface, key);
    return factory(origin, question, reply);
  }

  return {
    register(surface, factory, refusalNote) {
      factories.set(surface, factory);
      if (refusalNote) refusalNotes.set(surface, refusalNote);
    },
    wait(key, sink) {
      return new Promise<RunOutcome>((resolve, reject) => waiters.set(key, { sink, resolve, reject }));
    },
    presenterFor(key, origin, question, reply) {
      const shown = presenterHere(key, origin, question, reply);
      // A schedule's run: `[SILENT]` shows nothing, a late one says so (the one place an outcome reaches a surface).
      return origin.schedule ? slotPresenter(shown, origin.schedule) : shown;
    },
    canShow: (key, surface) => waiters.has(key) || factories.has(surface),
    async refuse(key, origin, question, outcome, reply) {
      const note = refusalNotes.get(origin.surface);
      if (waiters.has(key) || !note) {
        await this.presenterFor(key, origin, question, reply).finish(outcome);
        return;
      }
      await note(origin, outcome.answer, reply);
    },
    isWaiting: (key) => waiters.has(key),
    has: (surface) => factories.has(surface),
  };
}
