// A model whose calls wait, one by one, until the test lets each go: so a test can send messages
// while a run is in the middle of a model call, and know where the run stands when it does.
import type { Model, ModelReply, ModelRequest } from "../../src/contracts/types.js";

export interface HeldModel extends Model {
  /** Resolves once call `index` (0-based) arrived and waits. */
  reached(index: number): Promise<void>;
  /** Lets call `index` go on (before or after it arrived). */
  release(index: number): void;
  /** Lets every call go on from now on, those waiting too. */
  releaseAll(): void;
}

interface Latch {
  readonly promise: Promise<void>;
  open(): void;
}

function latch(): Latch {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

export function heldModel(inner: Model): HeldModel {
  const arrived = new Map<number, Latch>();
  const released = new Map<number, Latch>();
  const at = (map: Map<number, Latch>, index: number) => map.get(index) ?? map.set(index, latch()).get(index)!;
  let calls = 0;
  let all = false;
  return {
    name: inner.name,
    reached: (index) => at(arrived, index).promise,
    release: (index) => at(released, index).open(),
    releaseAll() {
      all = true;
      for (const gate of released.values()) gate.open();
    },
    async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelReply> {
      const index = calls++;
      at(arrived, index).open();
      if (!all)
        // Like a real model client, a call waiting here rejects once its signal aborts (a Stop, the deadline).
        await new Promise<void>((resolve, reject) => {
          signal.addEventListener("abort", () => reject(signal.reason), { once: true });
          void at(released, index).promise.then(resolve);
        });
      return inner.complete(request, signal);
    },
  };
}
