import type { GuardStop } from "../../contracts/types.js";
import { guardStop } from "./guard-stop.js";

/** A 3-call cycle seen three times. */
const CYCLE_MEMORY = 9;
const DOMINANT_SHARE = 0.6;
/** A window of one call would stop every first call (one call is 100 % of it). */
const MIN_WINDOW = 2;

/** How many of the latest signatures the check needs: the window, and at least a 3-call cycle seen three times. */
export function oscillationMemory(window: number): number {
  return Math.max(CYCLE_MEMORY, window);
}

function isCycle(recent: readonly string[], period: number): boolean {
  const span = period * 3;
  if (recent.length < span) return false;
  const tail = recent.slice(-span);
  if (new Set(tail.slice(0, period)).size < 2) return false;
  return tail.every((signature, index) => signature === tail[index % period]);
}

/**
 * `recent` holds the signatures of the latest calls, oldest first. Fires when, in the last
 * `window` calls, one signature holds more than 60 %, or a cycle of 2 or 3 calls repeated three times.
 */
export function checkOscillation(
  recent: readonly string[],
  requestedWindow: number,
  toolOf: (signature: string) => string,
): GuardStop | undefined {
  const window = Math.max(MIN_WINDOW, requestedWindow);
  for (const period of [2, 3]) {
    if (isCycle(recent, period)) {
      const cycle = recent.slice(-period).map(toolOf).join(" → ");
      return guardStop(
        "oscillation",
        `cycle of ${period} calls repeated 3 times: ${cycle}`,
        `Stopped: the agent was going in circles (${cycle}, three times over).`,
      );
    }
  }
  if (recent.length < window) return undefined;
  const counts = new Map<string, number>();
  for (const signature of recent.slice(-window)) counts.set(signature, (counts.get(signature) ?? 0) + 1);
  for (const [signature, count] of counts) {
    if (count / window > DOMINANT_SHARE) {
      const tool = toolOf(signature);
      return guardStop(
        "oscillation",
        `${tool} made ${count} of the last ${window} calls with the same arguments`,
        `Stopped: the agent kept coming back to the same call (${tool}, ${count} of the last ${window}).`,
      );
    }
  }
  return undefined;
}
