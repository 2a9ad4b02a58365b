// A schedule's slot that gets a thread of its own (`per_slot`, the default) starts with a root
// message in the schedule's channel, and the run shows under it. The root's place is kept per
// slot in the store, so whichever process shows the run later (a resume after an approval, a
// restart) answers in the same thread instead of posting a second root. Without a root (the
// platform refused it) the run shows where the schedule was made. A slot's run shows nothing
// until it has something to show (a tool call, its answer), so `[SILENT]` posts nothing.
import type { ScheduledSlot, TaskOrigin } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import type { KeyValueStore } from "../../memory/types.js";
import { ownerName } from "../../schedules/schedule-record.js";
import { slotText } from "../../schedules/wall-clock.js";
import type { ChatSurface, DisplayRequest, RunDisplay, TextFormat } from "./surface.js";

/** Longer than any slot's run, its approvals included. */
const ROOT_KEPT_MS = 30 * 24 * 60 * 60_000;

/** The root message of a slot's thread. */
export function slotHeading(slot: ScheduledSlot, origin: TaskOrigin, format: TextFormat): string {
  const due = slotText(slot.slotAt, slot.timeZone ?? "UTC");
  return `⏰ Schedule ${slot.scheduleId} of ${format.plain(ownerName(origin.requester))}, for ${due}`;
}

const isPlace = (value: unknown): value is Record<string, string> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every((field) => typeof field === "string");

/**
 * The thread's place, opened at most once per slot; undefined when the platform refused, or, with `open`
 * false, when no process opened it yet. Never rejects.
 */
async function rootPlace<C, R>(
  deps: { readonly store: KeyValueStore; readonly logger: Logger; readonly surface: ChatSurface<C, R> },
  origin: TaskOrigin,
  slot: ScheduledSlot,
  open = true,
): Promise<Readonly<Record<string, string>> | undefined> {
  const { store, logger, surface } = deps;
  const key = `${surface.name}:slot-thread:${slot.scheduleId}:${slot.slotAt}`;
  try {
    const stored = await store.get(key);
    if (isPlace(stored)) return stored;
    if (!open) return undefined;
    const opened = await surface.openSlotThread?.(origin, slotHeading(slot, origin, surface.format));
    if (opened) await store.set(key, opened, ROOT_KEPT_MS);
    return opened;
  } catch (error) {
    logger.warn(
      { err: error, scheduleId: slot.scheduleId },
      "could not open a schedule slot's thread; it shows where the schedule was made",
    );
    return undefined;
  }
}

/**
 * A slot's display, shown from the first moment it has something to show: its first tool call, its
 * answer, an approval, a failure. Until then nothing is posted (no root, no "working"), so a run
 * that answers `[SILENT]` without a tool call leaves no trace in the channel.
 */
function shownWhenNeeded<R>(open: () => Promise<RunDisplay<R>>, here: RunDisplay<R>, find: RunDisplay<R>["findAnswer"]): RunDisplay<R> {
  let opened: Promise<RunDisplay<R>> | undefined;
  /** The display once it opened, for what is asked of it synchronously. */
  let openedDisplay: RunDisplay<R> | undefined;
  /** endProgress before anything showed: kept for the answer, approval or failure that may follow. */
  let ended: Parameters<RunDisplay<R>["endProgress"]> | undefined;
  const shown = () =>
    (opened ??= open().then((display) => {
      display.begin?.();
      openedDisplay = display;
      return display;
    }));
  /** The display, with the end of a progress never shown told first. */
  const showing = async () => {
    const display = await shown();
    const held = ended;
    ended = undefined;
    if (held) await display.endProgress(...held);
    return display;
  };
  return {
    progressIntervalMs: here.progressIntervalMs,
    progress: async (progress) => {
      if (!opened && progress.tasks.length === 0) return;
      await (await showing()).progress(progress);
    },
    endProgress: async (outcome, last) => {
      if (!opened) ended = [outcome, last];
      else await (await showing()).endProgress(outcome, last);
    },
    answer: async (card) => (await showing()).answer(card),
    approval: async (card) => (await showing()).approval(card),
    failure: async () => (await showing()).failure(),
    findAnswer: async (runId) => (opened ? (await opened).findAnswer?.(runId) : find?.(runId)),
    unfinished: () => openedDisplay?.unfinished?.() ?? [],
    // What was left open names its own messages: ending them opens no thread.
    settleUnfinished: async (left) => here.settleUnfinished?.(left),
  };
}

/** The run's display: a slot's under its own root message when the slot has a thread of its own, shown when needed. */
export function displayFor<C, R>(
  deps: { readonly store: KeyValueStore; readonly logger: Logger; readonly surface: ChatSurface<C, R> },
  request: DisplayRequest<R>,
): RunDisplay<R> {
  const { surface } = deps;
  const show = (shown: DisplayRequest<R>) => surface.display!.call(surface, shown);
  const slot = request.origin.schedule;
  const here = show(request);
  if (!slot) return here;
  const atRoot = (place: Readonly<Record<string, string>> | undefined) =>
    place ? show({ ...request, origin: { ...request.origin, place } }) : here;
  if (slot.thread !== "per_slot" || !surface.openSlotThread)
    return shownWhenNeeded(
      async () => here,
      here,
      async (runId) => here.findAnswer?.(runId),
    );
  // An answer posted before a restart is under the root a process opened, if one did: looking for it opens none.
  const find = async (runId: string) => {
    const place = await rootPlace(deps, request.origin, slot, false);
    return place ? atRoot(place).findAnswer?.(runId) : undefined;
  };
  return shownWhenNeeded(async () => atRoot(await rootPlace(deps, request.origin, slot)), here, find);
}
