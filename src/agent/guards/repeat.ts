import type { GuardStop } from "../../contracts/types.js";
import { guardStop } from "./guard-stop.js";

export interface RepeatState {
  readonly lastSignature?: string;
  /** How many times in a row lastSignature was asked for. */
  readonly streak: number;
}

export type RepeatVerdict =
  | { readonly kind: "run"; readonly state: RepeatState }
  /** Second identical call in a row: not executed; the model gets the earlier result and a warning. */
  | { readonly kind: "warn"; readonly state: RepeatState }
  | { readonly kind: "trip"; readonly state: RepeatState; readonly stop: GuardStop };

export const REPEAT_TRIP_AT = 3;

export function checkRepeat(state: RepeatState, signature: string, tool: string): RepeatVerdict {
  const streak = state.lastSignature === signature ? state.streak + 1 : 1;
  const next = { lastSignature: signature, streak };
  if (streak >= REPEAT_TRIP_AT) {
    return {
      kind: "trip",
      state: next,
      stop: guardStop(
        "repeat",
        `${tool} was called ${streak} times in a row with the same arguments`,
        `Stopped: the same call (${tool}) was repeated ${streak} times.`,
      ),
    };
  }
  return { kind: streak === 2 ? "warn" : "run", state: next };
}

export function repeatWarning(tool: string): string {
  return `Warning: you already called ${tool} with exactly these arguments; it was not run again. The earlier result is repeated above. Use it, change the arguments, or answer. Calling it a third time stops the run.`;
}
