// The one place where a guard's name becomes the plain sentence a person reads.
import type { GuardName, GuardStop } from "../types.js";

export function guardStop(guard: GuardName, detail: string, sentence: string): GuardStop {
  return { guard, detail, sentence };
}
