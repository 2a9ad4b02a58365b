// The process's Prometheus metrics (prom-client), in a registry of its own so tests and several
// apps in one process never share counters. Names follow Prometheus conventions: counters end
// in _total, durations are _seconds histograms.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { EndpointHealth } from "../agent/models/endpoint-breakers.js";
import type { MetricsSource } from "./ops-routes.js";

export interface Metrics extends MetricsSource {
  readonly registry: Registry;
  readonly runsStarted: Counter<"surface" | "kind">;
  readonly runsEnded: Counter<"surface" | "outcome" | "guard">;
  readonly runsInFlight: Gauge<"surface">;
  readonly steps: Counter<"surface">;
  readonly toolCalls: Counter<"tool" | "outcome">;
  readonly approvalsRequested: Counter<"surface" | "tool">;
  readonly approvalsDecided: Counter<"surface" | "decision">;
  readonly approvalsExpired: Counter<"surface">;
  readonly approvalDecisionSeconds: Histogram<"decision">;
  readonly modelCallSeconds: Histogram<"model" | "outcome">;
  readonly modelTokens: Counter<"model" | "type">;
  readonly storeErrors: Counter<"operation">;
  readonly eventsDeduplicated: Counter<"surface">;
  /** Schedule slots by what happened when due: on_time, late, skipped (missed while down), refused (governance). */
  readonly scheduleSlots: Counter<"outcome">;
  /** Runs of schedule slots by how they ended: answered, silent ([SILENT]: nothing posted), failed. */
  readonly scheduleRunsEnded: Counter<"outcome">;
  /** Steps' model calls moved from one endpoint to another (MODEL_FALLBACKS). */
  readonly modelSwitches: Counter<"from" | "to">;
  /** Where queue depth comes from (the work queue, once it exists); read at each scrape. */
  setQueueDepthSource(depth: () => Promise<number>): void;
  /** Where the model endpoints' breaker states come from (with MODEL_FALLBACKS); read at each scrape. */
  setEndpointSource(endpoints: () => ReadonlyMap<string, EndpointHealth>): void;
}

const PREFIX = "agent_bot_";
const MODEL_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 40, 60, 120];
const DECISION_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
const BREAKER_STATES: readonly EndpointHealth["state"][] = ["closed", "open", "half_open"];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  let queueDepth: (() => Promise<number>) | undefined;
  let endpoints: (() => ReadonlyMap<string, EndpointHealth>) | undefined;

  const metrics: Metrics = {
    registry,
    contentType: registry.contentType,
    text: () => registry.metrics(),
    runsStarted: new Counter({
      name: `${PREFIX}runs_started_total`,
      help: "Runs started, by surface and kind (new, resumed after a decision, expired).",
      labelNames: ["surface", "kind"],
      registers,
    }),
    runsEnded: new Counter({
      name: `${PREFIX}runs_ended_total`,
      help: "Runs ended, by surface and outcome (answered, stopped by a guard, paused for approval, failed); guard names the guard that stopped it.",
      labelNames: ["surface", "outcome", "guard"],
      registers,
    }),
    runsInFlight: new Gauge({
      name: `${PREFIX}runs_in_flight`,
      help: "Runs this process is driving now.",
      labelNames: ["surface"],
      registers,
    }),
    steps: new Counter({ name: `${PREFIX}steps_total`, help: "Loop steps (one model call each).", labelNames: ["surface"], registers }),
    toolCalls: new Counter({
      name: `${PREFIX}tool_calls_total`,
      help: "Tool calls by tool and outcome (ok, error, timeout, denied…).",
      labelNames: ["tool", "outcome"],
      registers,
    }),
    approvalsRequested: new Counter({
      name: `${PREFIX}approvals_requested_total`,
      help: "Write calls that asked a person.",
      labelNames: ["surface", "tool"],
      registers,
    }),
    approvalsDecided: new Counter({
      name: `${PREFIX}approvals_decided_total`,
      help: "Approvals decided, by decision.",
      labelNames: ["surface", "decision"],
      registers,
    }),
    approvalsExpired: new Counter({
      name: `${PREFIX}approvals_expired_total`,
      help: "Approvals nobody decided in time.",
      labelNames: ["surface"],
      registers,
    }),
    approvalDecisionSeconds: new Histogram({
      name: `${PREFIX}approval_decision_seconds`,
      help: "Time from an approval request to its decision (requests made by this process).",
      labelNames: ["decision"],
      buckets: DECISION_BUCKETS,
      registers,
    }),
    modelCallSeconds: new Histogram({
      name: `${PREFIX}model_call_duration_seconds`,
      help: "Model calls, by model and outcome (ok, error).",
      labelNames: ["model", "outcome"],
      buckets: MODEL_BUCKETS,
      registers,
    }),
    modelTokens: new Counter({
      name: `${PREFIX}model_tokens_total`,
      help: "Tokens the model server reported, by type (prompt, completion).",
      labelNames: ["model", "type"],
      registers,
    }),
    storeErrors: new Counter({
      name: `${PREFIX}store_errors_total`,
      help: "Store operations that failed.",
      labelNames: ["operation"],
      registers,
    }),
    eventsDeduplicated: new Counter({
      name: `${PREFIX}events_deduplicated_total`,
      help: "Platform events ignored as redeliveries of one already taken.",
      labelNames: ["surface"],
      registers,
    }),
    scheduleSlots: new Counter({
      name: `${PREFIX}schedule_slots_total`,
      help: "Schedule slots when due, by outcome (on_time, late, skipped while down, refused by governance).",
      labelNames: ["outcome"],
      registers,
    }),
    scheduleRunsEnded: new Counter({
      name: `${PREFIX}schedule_runs_ended_total`,
      help: "Runs of schedule slots, by how they ended (answered, silent, failed).",
      labelNames: ["outcome"],
      registers,
    }),
    modelSwitches: new Counter({
      name: `${PREFIX}model_switches_total`,
      help: "Steps' model calls moved from one endpoint (model@base URL) to another, by where from and where to.",
      labelNames: ["from", "to"],
      registers,
    }),
    setQueueDepthSource(depth) {
      queueDepth = depth;
    },
    setEndpointSource(source) {
      endpoints = source;
    },
  };
  new Gauge({
    name: `${PREFIX}model_endpoint_state`,
    help: "Each model endpoint's circuit breaker (model@base URL): 1 for the state it is in (closed, open, half_open), 0 for the others.",
    labelNames: ["endpoint", "state"],
    registers,
    collect() {
      for (const [endpoint, health] of endpoints?.() ?? [])
        for (const state of BREAKER_STATES) this.set({ endpoint, state }, health.state === state ? 1 : 0);
    },
  });
  new Gauge({
    name: `${PREFIX}queue_depth`,
    help: "Work items added and not yet finished (waiting, delayed or running).",
    registers,
    async collect() {
      // A scrape must not fail because the queue's store is down: the depth then reads NaN (unknown).
      if (queueDepth) this.set(await queueDepth().catch(() => Number.NaN));
    },
  });
  return metrics;
}
