// A schedule's slot that gets a thread of its own (`per_slot`, the default) starts with a root
// message in the schedule's channel, and the run shows under it. The root's place is kept per
// slot in the store, so whichever process shows the run later (a resume after an approval, a
// restart) answers in the same thread instead of posting a second root. Without a root (the
// platform refused it) the run shows where the schedule was made.
import type { ScheduledSlot, TaskOrigin } from "../../agent/types.js";
import type { Logger } from "../../logger.js";
import type { KeyValueStore } from "../../memory/types.js";
import { ownerName } from "../../runs/schedules/schedule-record.js";
import { slotText } from "../../runs/schedules/wall-clock.js";
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

/** Resolves with the thread's place, opening it at most once per slot; undefined when the platform refused. Never rejects. */
async function rootPlace<C, R>(
  deps: { readonly store: KeyValueStore; readonly logger: Logger; readonly surface: ChatSurface<C, R> },
  origin: TaskOrigin,
  slot: ScheduledSlot,
): Promise<Readonly<Record<string, string>> | undefined> {
  const { store, logger, surface } = deps;
  const key = `${surface.name}:slot-thread:${slot.scheduleId}:${slot.slotAt}`;
  try {
    const stored = await store.get(key);
    if (isPlace(stored)) return stored;
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

/** Calls each part on the display once it is known, in order. */
function deferred<R>(opening: Promise<RunDisplay<R>>, progressIntervalMs: number): RunDisplay<R> {
  return {
    progressIntervalMs,
    begin: () => void opening.then((display) => display.begin?.()),
    progress: async (progress) => (await opening).progress(progress),
    endProgress: async (outcome, last) => (await opening).endProgress(outcome, last),
    answer: async (card) => (await opening).answer(card),
    approval: async (card) => (await opening).approval(card),
    failure: async () => (await opening).failure(),
  };
}

/** The run's display, under its slot's root message when the slot has a thread of its own. */
export function displayFor<C, R>(
  deps: { readonly store: KeyValueStore; readonly logger: Logger; readonly surface: ChatSurface<C, R> },
  request: DisplayRequest<R>,
): RunDisplay<R> {
  const { surface } = deps;
  const show = (shown: DisplayRequest<R>) => surface.display!.call(surface, shown);
  const slot = request.origin.schedule;
  const here = show(request);
  if (slot?.thread !== "per_slot" || !surface.openSlotThread) return here;
  const opening = rootPlace(deps, request.origin, slot).then((place) =>
    place ? show({ ...request, origin: { ...request.origin, place } }) : here,
  );
  return deferred(opening, here.progressIntervalMs);
}
