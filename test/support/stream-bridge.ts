// Until the loop streams (it will hand a model request an onDelta and emit text_delta itself),
// this carries a streaming test model's pieces to the run's presenter as the loop's text_delta
// events would come: the presenter's sink is remembered for the run whose step_started carried
// the request (by its live messages array, which every wrapper of the model passes on).
import type { AgentEvent, EventSink, ModelRequest, Surface } from "../../src/contracts/types.js";
import type { SurfaceHooks } from "../../src/runs/api/surface-hooks.js";

export interface StreamBridge {
  /** The hooks, with presenters whose sinks are remembered for the runs they show. */
  hooks(hooks: SurfaceHooks): SurfaceHooks;
  /** Sends a piece of the reply to `request` to its run's presenter; false when no presenter showed its step. */
  delta(request: ModelRequest, text: string): boolean;
}

export function createStreamBridge(): StreamBridge {
  const runs = new WeakMap<object, { readonly sink: EventSink; readonly runId: string; step: number }>();
  const remember = (sink: EventSink) => (event: AgentEvent) => {
    if (event.type === "step_started" && event.request) runs.set(event.request.messages, { sink, runId: event.runId, step: event.step });
    sink(event);
  };
  return {
    hooks(hooks) {
      const { present } = hooks;
      if (!present) return hooks;
      return {
        ...hooks,
        present(origin, question, reply) {
          const presenter = present(origin, question, reply);
          return Object.assign(Object.create(presenter) as typeof presenter, { sink: remember(presenter.sink) });
        },
      };
    },
    delta(request, text) {
      const run = runs.get(request.messages);
      run?.sink({ type: "text_delta", runId: run.runId, step: run.step, text });
      return run !== undefined;
    },
  };
}

/** The service as a surface attaches to it, with its presenters bridged. */
export function bridgedService<S extends { attach(surface: Surface, hooks: SurfaceHooks): void }>(service: S, bridge: StreamBridge): S {
  return Object.create(service, {
    attach: { value: (surface: Surface, hooks: SurfaceHooks) => service.attach(surface, bridge.hooks(hooks)) },
  });
}
