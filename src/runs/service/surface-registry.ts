// The surfaces attached to this process, in one typed registry: what each brought at attach
// (service/api surface-hooks.ts), how the workers reach it to show a run (worker/run-shows.ts:
// the caller waiting here, else the surface's presenter), its refusal note, its expiry handler
// and how it reads an older record's origin. The way back from a run to a person goes through here.
import type { RunPresenter, SlotShow } from "../api/presenting.js";
import type { SurfaceHooks } from "../api/surface-hooks.js";
import type { ReplyHandle } from "../api/task.js";
import type { EventSink, RunOutcome, Surface, TaskOrigin, Tool } from "../../contracts/types.js";
import { SurfaceUnavailableError } from "../../errors.js";
import type { Logger } from "../../logger.js";
import type { RunShows } from "../worker/run-shows.js";

/** A caller in this process waiting for a run's outcome. */
interface LocalWaiter {
  readonly sink: EventSink;
  resolve(outcome: RunOutcome): void;
  reject(error: unknown): void;
}

/** The surfaces attached to this process, one typed entry each: what the workers ask to show runs, and what the service asks of them. */
export interface SurfaceRegistry extends RunShows {
  /** Everything the surface brings; once, before it takes events. */
  attach(surface: Surface, hooks: SurfaceHooks): void;
  /** The surface's chat tools (none before it is attached). */
  tools(surface: Surface): readonly Tool[];
  /**
   * True when the rest of a decided run from `origin` is shown by its surface's presenter, from whichever process
   * runs it; false when the caller who decided waits for it here (no presenter).
   */
  presentsDecided(origin: TaskOrigin): boolean;
  /** What the surface brought at attach; undefined before it is attached. */
  hooksOf(surface: Surface): SurfaceHooks | undefined;
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

/** `showSlot`: how a schedule's slot run is shown (the schedules engine's: `[SILENT]` shows nothing, a late one says so). */
export function createSurfaceRegistry(logger: Logger, showSlot?: SlotShow): SurfaceRegistry {
  const attached = new Map<Surface, SurfaceHooks>();
  const waiters = new Map<string, LocalWaiter>();

  function presenterHere(key: string, origin: TaskOrigin, question: string, reply?: ReplyHandle): RunPresenter {
    const waiter = waiters.get(key);
    if (waiter) return waiterPresenter(waiter, () => waiters.delete(key));
    const present = attached.get(origin.surface)?.present;
    if (!present) throw new SurfaceUnavailableError(origin.surface, key);
    return present(origin, question, reply);
  }

  const registry: SurfaceRegistry = {
    attach(surface, hooks) {
      attached.set(surface, hooks);
    },
    tools: (surface) => attached.get(surface)?.tools ?? [],
    presentsDecided: (origin) => attached.get(origin.surface)?.present !== undefined,
    hooksOf: (surface) => attached.get(surface),
    wait(key, sink) {
      return new Promise<RunOutcome>((resolve, reject) => waiters.set(key, { sink, resolve, reject }));
    },
    presenterFor(key, origin, question, reply) {
      const shown = presenterHere(key, origin, question, reply);
      // A schedule's run: the one place an outcome reaches a surface, so the one place its slot's rules apply.
      return origin.schedule && showSlot ? showSlot(shown, origin.schedule) : shown;
    },
    canShow: (key, surface) => waiters.has(key) || attached.get(surface)?.present !== undefined,
    isWaiting: (key) => waiters.has(key),
    async refuse(key, origin, question, outcome, reply) {
      const note = attached.get(origin.surface)?.refuse;
      if (waiters.has(key) || !note) {
        await registry.presenterFor(key, origin, question, reply).finish(outcome);
        return;
      }
      await note(origin, outcome.answer, reply);
    },
    showsExpiry: (surface) => attached.get(surface)?.expired !== undefined,
    expired(surface, pending, outcome) {
      try {
        attached.get(surface)?.expired?.(pending, outcome);
      } catch (error) {
        logger.warn({ err: error }, "an approval expiry handler threw; ignored");
      }
    },
    upgrade: (origin) => attached.get(origin.surface)?.upgrade?.(origin) ?? { origin },
    async tell(origin, text, link) {
      const tell = attached.get(origin.surface)?.tell;
      if (!tell) return false;
      await tell(origin, text, link);
      return true;
    },
  };
  return registry;
}
