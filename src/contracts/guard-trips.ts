// Which run endings are a guard stopping the model, for the lists and counts people read: a
// person's Stop and a model server that could not be reached end a run the same way (with a
// summary and a reason) but are no guard trip, and are not counted or shown as one.
import type { GuardName } from "./types.js";

const NOT_TRIPS: ReadonlySet<string> = new Set<GuardName>(["stopped", "model_unavailable"]);

/** Whether a run that ended on `guard` was stopped by a guard (the steps cap, repeats, tokens…). */
export function isGuardTrip(guard: string | undefined): guard is string {
  return guard !== undefined && !NOT_TRIPS.has(guard);
}
