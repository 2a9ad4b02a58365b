// The circuit breakers of a process's model endpoints, one per endpoint name, shared by every run
// and every model client of the process: an endpoint that failed for one run is rested for all of
// them, so a dead endpoint costs a few failures, not a few per run. Each breaker is the pure one of
// circuit-breaker.ts; this holds their states, the last failure of each (the reason a person reads
// when a call skips an endpoint) and the clock.
import {
  abandoned,
  type BreakerSettings,
  type BreakerState,
  type BreakerVerdict,
  CLOSED,
  failed,
  shownState,
  succeeded,
  taken,
  verdict,
} from "./circuit-breaker.js";

/** An endpoint as the breakers see it right now. */
export interface EndpointHealth {
  readonly state: BreakerState["kind"];
  /** Consecutive failures counted while closed. */
  readonly failures: number;
  /** What its last failure was, for a person ("429 from api.openai.com"); absent once it answered again. */
  readonly lastFailure?: string;
}

export interface EndpointBreakers {
  /** What a call asked for now would get. */
  verdict(endpoint: string): BreakerVerdict;
  /** Lets a call through now if the breaker allows: `probe` when it is the one probe of a half-open breaker. */
  take(endpoint: string): "call" | "probe" | "refused";
  succeeded(endpoint: string): void;
  /** `cause`: the failure in a person's words; `serverWaitMs`: the wait the server asked for, when it did. */
  failed(endpoint: string, cause: string, serverWaitMs?: number): void;
  /** A call let through ended without a verdict on the endpoint (a Stop, the deadline). */
  abandoned(endpoint: string, wasProbe: boolean): void;
  health(endpoint: string): EndpointHealth;
  /** Every endpoint asked about so far, by name (metrics). */
  all(): ReadonlyMap<string, EndpointHealth>;
}

interface Entry {
  state: BreakerState;
  lastFailure?: string;
}

export function createEndpointBreakers(settings: BreakerSettings, clock: () => number = Date.now): EndpointBreakers {
  const entries = new Map<string, Entry>();
  const entry = (endpoint: string): Entry => entries.get(endpoint) ?? entries.set(endpoint, { state: CLOSED }).get(endpoint)!;
  const healthOf = (found: Entry): EndpointHealth => ({
    state: shownState(found.state, clock()),
    failures: found.state.kind === "closed" ? found.state.failures : 0,
    ...(found.lastFailure === undefined ? {} : { lastFailure: found.lastFailure }),
  });

  return {
    verdict: (endpoint) => verdict(entry(endpoint).state, clock()),
    take(endpoint) {
      const found = entry(endpoint);
      const now = clock();
      const { kind } = verdict(found.state, now);
      if (kind === "refuse") return "refused";
      found.state = taken(found.state, now);
      return kind;
    },
    succeeded(endpoint) {
      const found = entry(endpoint);
      found.state = succeeded();
      found.lastFailure = undefined;
    },
    failed(endpoint, cause, serverWaitMs) {
      const found = entry(endpoint);
      found.state = failed(found.state, clock(), settings, serverWaitMs);
      found.lastFailure = cause;
    },
    abandoned(endpoint, wasProbe) {
      const found = entry(endpoint);
      found.state = abandoned(found.state, clock(), wasProbe);
    },
    health: (endpoint) => healthOf(entry(endpoint)),
    all: () => new Map([...entries].map(([endpoint, found]) => [endpoint, healthOf(found)])),
  };
}
