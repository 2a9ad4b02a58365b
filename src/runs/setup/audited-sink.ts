// A run's events also go to the audit log (approvals, decisions, expiry, writes) when the
// settings file keeps one.
import type { EventSink, TaskOrigin } from "../../contracts/types.js";
import type { RunPolicy } from "../../governance/run-policy.js";

export type SinkFor = (origin: TaskOrigin, sink: EventSink, waitingTool?: string) => EventSink;

/** `isWrite` names the write tools of the run's surface, so the log can tell a write's result from a read's. */
export function auditedSinks(runPolicy: RunPolicy | undefined, isWrite: (origin: TaskOrigin, name: string) => boolean): SinkFor {
  if (!runPolicy) return (_origin, sink) => sink;
  return (origin, sink, waitingTool) => {
    const audit = runPolicy.auditSink({ origin, isWrite: (name) => isWrite(origin, name), ...(waitingTool ? { waitingTool } : {}) });
    return (event) => {
      audit(event);
      sink(event);
    };
  };
}
