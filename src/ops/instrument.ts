// Wrappers that measure the two seams every run goes through: the model (call duration,
// tokens) and the store (errors). They change nothing the caller sees.
import type { KeyValueStore } from "../memory/types.js";
import type { SubmitResult, Task } from "../runs/api/task.js";
import type { Model } from "../contracts/types.js";
import type { Metrics } from "./metrics.js";

export function instrumentModel(model: Model, metrics: Metrics): Model {
  const labels = { model: model.name };
  return {
    name: model.name,
    async complete(request, signal) {
      const started = performance.now();
      try {
        const reply = await model.complete(request, signal);
        metrics.modelCallSeconds.observe({ ...labels, outcome: "ok" }, (performance.now() - started) / 1000);
        if (reply.usage) {
          metrics.modelTokens.inc({ ...labels, type: "prompt" }, reply.usage.promptTokens);
          metrics.modelTokens.inc({ ...labels, type: "completion" }, reply.usage.completionTokens);
        }
        return reply;
      } catch (error) {
        metrics.modelCallSeconds.observe({ ...labels, outcome: "error" }, (performance.now() - started) / 1000);
        throw error;
      }
    },
  };
}

/** Counts every store operation that rejects; also methods added to the store later. */
export function instrumentStore<S extends KeyValueStore>(store: S, metrics: Metrics): S {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || property === "close") return value;
      const operation = String(property);
      return (...args: unknown[]) => {
        const result: unknown = value.apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.catch((error: unknown) => {
          metrics.storeErrors.inc({ operation });
          throw error;
        });
      };
    },
  });
}

interface Submitting {
  submit(task: Task, receipt: string): Promise<SubmitResult>;
}

/** Counts the platform events the runner turned away as redeliveries of a message it already took. */
export function instrumentService<S extends Submitting>(service: S, metrics: Metrics): S {
  return new Proxy(service, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== "submit" || typeof value !== "function") return typeof value === "function" ? value.bind(target) : value;
      return async (task: Task, receipt: string): Promise<SubmitResult> => {
        const result = await target.submit(task, receipt);
        if (result.kind === "duplicate") metrics.eventsDeduplicated.inc({ surface: task.origin.surface });
        return result;
      };
    },
  });
}
