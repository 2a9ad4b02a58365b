// The erasures of removed workspaces booked in the store, as the product books them
// (adapters/core/workspace-erasures.ts), for tests that watch a removal from outside the process.
import type { KeyValueStore } from "../../src/memory/types.js";

export interface Booked {
  readonly workspace: string;
  readonly dueAt: number;
}

/** After AGENT_RUN_TIMEOUT_MS's default and the 5 minutes a run's last writes get (app-removals.ts). */
export const RUNS_END_WITHIN_MS = 120_000 + 5 * 60_000;

export async function bookedErasures(store: KeyValueStore): Promise<Booked[]> {
  return (await store.setMembers("workspace:erasures")).map((member) => JSON.parse(member) as Booked);
}

/** The erasure due at the removal is carried out; what stays booked is the second one, after the runs then in progress. */
export async function erasedAtOnce(store: KeyValueStore, removedAt: number): Promise<boolean> {
  const booked = await bookedErasures(store);
  return booked.length === 1 && booked[0]!.dueAt >= removedAt + RUNS_END_WITHIN_MS;
}
