// The process's health as the ops server reports it. Not ready until the start is complete
// (every surface attached, the queue started); the shutdown path flips "shutting down" (503
// from that moment until the port closes); surfaces report their platform connection; the
// store is probed on each readiness request (see store-check.ts).
import { connectionCheck, failing, OK, readinessOf, type CheckResult, type ConnectionState, type ReadinessReport } from "./readiness.js";

export interface Health {
  /** Called once every surface is attached and the queue started; readiness fails until then. Idempotent. */
  started(): void;
  /** Called at the first moment of a shutdown; readiness fails from then on. Idempotent. */
  shuttingDown(): void;
  /** A surface's connection to its platform; a surface that was expected and never reported "up" is not ready. */
  connection(surface: string, state: ConnectionState, reason?: string): void;
  readiness(): Promise<ReadinessReport>;
}

export interface HealthDeps {
  /** Must not reject (createStoreCheck never does). */
  readonly checkStore: () => Promise<CheckResult>;
}

export function createHealth(deps: HealthDeps): Health {
  let started = false;
  let stopping = false;
  const connections = new Map<string, { state: ConnectionState; reason?: string }>();
  return {
    started() {
      started = true;
    },
    shuttingDown() {
      stopping = true;
    },
    connection(surface, state, reason) {
      connections.set(surface, { state, reason });
    },
    async readiness() {
      // While stopping the store is being closed: probing it would only hold the answer up.
      if (stopping) return readinessOf({ shutdown: failing("shutting down") });
      const checks: Record<string, CheckResult> = {
        shutdown: OK,
        started: started ? OK : failing("starting: the surfaces are being attached"),
        store: await deps.checkStore(),
      };
      for (const [surface, { state, reason }] of connections) checks[surface] = connectionCheck(state, reason);
      return readinessOf(checks);
    },
  };
}
