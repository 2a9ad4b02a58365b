// A circuit breaker for one model endpoint: the source design's closed / open / half-open
// breaker, applied to a provider. Closed, every call goes through and failures in a row are
// counted; at `failuresToOpen` it opens and refuses calls for `coolDownMs`; then it is half-open
// and lets one probe through, whose outcome closes it or opens it again. A server that says when
// to come back (a 429's retry-after) opens it at once until then.
//
// Pure and clock-driven: each function takes the state and the time and returns the next state,
// so one breaker can be shared by every run of a process and tested without waiting.

export interface BreakerSettings {
  /** Consecutive failures that open a closed breaker. */
  readonly failuresToOpen: number;
  /** How long an open breaker refuses calls before it lets one probe through. */
  readonly coolDownMs: number;
}

export type BreakerState =
  | { readonly kind: "closed"; readonly failures: number }
  /** Refuses calls until `until` (epoch ms); the first call asked for after it is the probe. */
  | { readonly kind: "open"; readonly until: number }
  /** The probe is in flight: every other call is refused until it settles. */
  | { readonly kind: "half_open" };

export const CLOSED: BreakerState = { kind: "closed", failures: 0 };

/** What a call asked for now would get, without taking it. */
export type BreakerVerdict =
  | { readonly kind: "call" }
  | { readonly kind: "probe" }
  /** `until`: when it lets a probe through; absent while a probe is in flight (nobody knows when it settles). */
  | { readonly kind: "refuse"; readonly until?: number };

export function verdict(state: BreakerState, now: number): BreakerVerdict {
  if (state.kind === "closed") return { kind: "call" };
  if (state.kind === "half_open") return { kind: "refuse" };
  return now >= state.until ? { kind: "probe" } : { kind: "refuse", until: state.until };
}

/** The state once a call was let through at `now`: taking the probe makes it half-open. Call only after a verdict that is not `refuse`. */
export function taken(state: BreakerState, now: number): BreakerState {
  return verdict(state, now).kind === "probe" ? { kind: "half_open" } : state;
}

/** The endpoint answered (an answer, or a refusal that is the request's fault, not the server's health). */
export function succeeded(): BreakerState {
  return CLOSED;
}

/**
 * The endpoint failed in a way that says it is unwell (connection, timeout, 408, 409, 429, 5xx).
 * `serverWaitMs`: how long the server asked to be left alone, which holds whatever the count says.
 */
export function failed(state: BreakerState, now: number, settings: BreakerSettings, serverWaitMs?: number): BreakerState {
  const asked = serverWaitMs !== undefined && serverWaitMs > 0 ? now + serverWaitMs : undefined;
  if (state.kind === "open") return asked !== undefined && asked > state.until ? { kind: "open", until: asked } : state;
  const failures = state.kind === "closed" ? state.failures + 1 : settings.failuresToOpen;
  if (failures >= settings.failuresToOpen) return { kind: "open", until: Math.max(now + settings.coolDownMs, asked ?? 0) };
  return asked !== undefined ? { kind: "open", until: asked } : { kind: "closed", failures };
}

/**
 * A call let through ended without telling anything of the endpoint (the run was stopped, its
 * deadline came). A probe that ended so leaves the breaker open and due: the next call probes again.
 */
export function abandoned(state: BreakerState, now: number, wasProbe: boolean): BreakerState {
  return wasProbe && state.kind === "half_open" ? { kind: "open", until: now } : state;
}

/** The state as metrics and people read it at `now`: an open breaker whose cool-down is over is half-open (its next call probes). */
export function shownState(state: BreakerState, now: number): BreakerState["kind"] {
  return state.kind === "open" && now >= state.until ? "half_open" : state.kind;
}
