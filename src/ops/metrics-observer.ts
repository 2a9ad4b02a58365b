// Turns the runs' events into metric updates: runs started and ended, steps, tool calls,
// approvals and the time they waited. Model calls and the store are measured by the wrappers
// in instrument.ts, which also see calls outside runs (summaries, fact extraction).
import type { AgentEvent, TaskOrigin } from "../contracts/types.js";
import type { RunObserver } from "../runs/worker/run-observer.js";
import type { Metrics } from "./metrics.js";

/** Requests older than this are dropped from the waiting list: they expired long ago or were decided elsewhere. */
const MAX_WAITING = 10_000;

export function metricsObserver(metrics: Metrics, clock: () => number = Date.now): RunObserver {
  const active = new Set<string>();
  /** When each run's approval was requested, for the time to its decision. One pending approval per run. */
  const waiting = new Map<string, number>();

  const end = (runId: string, origin: TaskOrigin, outcome: string, guard = "none"): void => {
    metrics.runsEnded.inc({ surface: origin.surface, outcome, guard });
    if (active.delete(runId)) metrics.runsInFlight.dec({ surface: origin.surface });
  };

  const decided = (event: Extract<AgentEvent, { type: "approval_decided" }>, origin: TaskOrigin): void => {
    metrics.approvalsDecided.inc({ surface: origin.surface, decision: event.decision });
    const requestedAt = waiting.get(event.runId);
    waiting.delete(event.runId);
    if (requestedAt !== undefined) metrics.approvalDecisionSeconds.observe({ decision: event.decision }, (clock() - requestedAt) / 1000);
  };

  return {
    runStarted(runId, origin, how) {
      metrics.runsStarted.inc({ surface: origin.surface, kind: how });
      active.add(runId);
      metrics.runsInFlight.inc({ surface: origin.surface });
    },
    event(event, origin) {
      switch (event.type) {
        case "step_started":
          metrics.steps.inc({ surface: origin.surface });
          return;
        case "tool_result":
          metrics.toolCalls.inc({ tool: event.call.tool, outcome: event.call.outcome });
          return;
        case "model_switched":
          metrics.modelSwitches.inc({ from: event.from, to: event.to });
          return;
        case "approval_needed":
          metrics.approvalsRequested.inc({ surface: origin.surface, tool: event.approval.tool });
          if (waiting.size >= MAX_WAITING) waiting.delete(waiting.keys().next().value!);
          waiting.set(event.runId, clock());
          return;
        case "approval_decided":
          decided(event, origin);
          return;
        case "guard_tripped":
          if (event.stop.guard === "approval_expired") {
            metrics.approvalsExpired.inc({ surface: origin.surface });
            waiting.delete(event.runId);
          }
          return;
        case "final": {
          const { outcome } = event;
          if (outcome.status === "paused") end(event.runId, origin, "paused");
          else if (outcome.stop) end(event.runId, origin, "stopped", outcome.stop.guard);
          else end(event.runId, origin, "answered");
          return;
        }
        default:
          return;
      }
    },
    runFailed(runId, origin) {
      end(runId, origin, "failed");
    },
  };
}
