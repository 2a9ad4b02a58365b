// A work queue that refuses the first few resume items, as BullMQ does while Redis is unreachable.
import type { WorkQueue } from "../../src/runs/queue/work-queue.js";

export function failingResumes(inner: WorkQueue, times: number): WorkQueue & { readonly refused: number } {
  let refused = 0;
  return {
    get refused() {
      return refused;
    },
    async add(item, options) {
      if (item.kind === "resume" && refused < times) {
        refused += 1;
        throw new Error("Connection is closed.");
      }
      return inner.add(item, options);
    },
    start: (handler, concurrency) => inner.start(handler, concurrency),
    depth: () => inner.depth(),
    close: (graceMs) => inner.close(graceMs),
  };
}
