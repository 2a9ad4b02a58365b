// The one place where a guard's name becomes the plain sentence a person reads.
import type { GuardName, GuardStop } from "../../contracts/types.js";

export function guardStop(guard: GuardName, detail: string, sentence: string): GuardStop {
  return { guard, detail, sentence };
}

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}

/** A duration as a person says it: "400 ms", "1.5 seconds", "2 minutes"; never rounded down to zero. */
export function durationPhrase(ms: number): string {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms % 60_000 === 0) return plural(ms / 60_000, "minute");
  if (ms < 10_000 && ms % 1_000 !== 0) return `${(ms / 1_000).toFixed(1)} seconds`;
  return plural(Math.round(ms / 1_000), "second");
}
