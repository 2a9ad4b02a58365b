// The decision a failing model call takes before each try: which endpoint next, or how long to
// wait for one, or to give up. Pure: the breakers' verdicts and the call's own history in, one
// step out. Within a round each endpoint is tried once, in the configured order, skipping those
// whose breaker refuses; a new round (the same endpoints again) starts after a wait that must end
// before the deadline, like a retry of one endpoint today.
import type { BreakerVerdict } from "./circuit-breaker.js";

export interface PlanInput {
  /** Names in the configured order: the primary first. */
  readonly endpoints: readonly string[];
  readonly verdictOf: (endpoint: string) => BreakerVerdict;
  /** Tried and failed in this round. */
  readonly failedThisRound: ReadonlySet<string>;
  /** Can't be used for this call at all (its window can't hold the request, or it refused the request). */
  readonly ruledOut: ReadonlySet<string>;
  readonly triesLeft: number;
  readonly now: number;
  /** The latest a wait may end (the run's deadline). */
  readonly waitLimit: number;
  /** The wait before an endpoint that failed this round is asked again, when its server named none. */
  readonly backoffMs: number;
}

export type NextTry =
  | { readonly kind: "call"; readonly endpoint: string }
  /** Nothing can be asked now: wait until `until`, then plan a new round. */
  | { readonly kind: "wait"; readonly until: number }
  | { readonly kind: "give_up" };

export function nextTry(input: PlanInput): NextTry {
  if (input.triesLeft <= 0) return { kind: "give_up" };
  const usable = input.endpoints.filter((endpoint) => !input.ruledOut.has(endpoint));
  const now = usable.find((endpoint) => !input.failedThisRound.has(endpoint) && input.verdictOf(endpoint).kind !== "refuse");
  if (now !== undefined) return { kind: "call", endpoint: now };
  const ready = usable.map((endpoint) => readyAt(endpoint, input)).filter((at): at is number => at !== undefined);
  if (ready.length === 0) return { kind: "give_up" };
  const until = Math.min(...ready);
  return until <= input.waitLimit ? { kind: "wait", until } : { kind: "give_up" };
}

/** When an endpoint could be asked next: when its breaker lets a probe through, else after the backoff if it failed this round. */
function readyAt(endpoint: string, input: PlanInput): number | undefined {
  const verdict = input.verdictOf(endpoint);
  if (verdict.kind === "refuse") return verdict.until;
  return input.failedThisRound.has(endpoint) ? input.now + input.backoffMs : input.now;
}
