// Seeded randomness for the soak: one stream per concern (traffic, faults, clicks), each drawn
// from the seed and a name, so a change to how one concern draws leaves the others' draws as
// they were. Pure: the same seed gives the same numbers on every machine.
import { createHash } from "node:crypto";

export interface Random {
  /** A number in [0, 1). */
  next(): number;
  /** A whole number in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
}

/** 32 bits of sha256 over the seed and the parts: stable, and unrelated for unrelated parts. */
export function hashOf(seed: number, ...parts: readonly (string | number)[]): number {
  return createHash("sha256")
    .update([seed, ...parts].join("\n"))
    .digest()
    .readUInt32LE(0);
}

/** mulberry32: small, fast and good enough to spread faults and traffic. */
export function randomStream(seed: number, name: string): Random {
  let state = hashOf(seed, name);
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => {
      if (items.length === 0) throw new Error("pick from an empty list");
      return items[Math.floor(next() * items.length)]!;
    },
    chance: (probability) => next() < probability,
  };
}
