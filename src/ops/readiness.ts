// Readiness as data: each check's status, and the one rule that turns them into an answer.
// Liveness is only "the process answers"; readiness is "send me work": every check passes.

export type CheckResult = { readonly status: "ok" } | { readonly status: "failing"; readonly reason: string };

export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, CheckResult>>;
}

export const OK: CheckResult = { status: "ok" };

export function failing(reason: string): CheckResult {
  return { status: "failing", reason };
}

/** Ready only when every check passes; no checks at all is not ready (nothing said it works). */
export function readinessOf(checks: Readonly<Record<string, CheckResult>>): ReadinessReport {
  const results = Object.values(checks);
  return { ready: results.length > 0 && results.every((check) => check.status === "ok"), checks };
}

/** What a surface last reported about its connection to the platform. */
export type ConnectionState = "starting" | "up" | "down";

export function connectionCheck(state: ConnectionState, reason?: string): CheckResult {
  if (state === "up") return OK;
  if (state === "starting") return failing("connecting");
  return failing(reason ?? "disconnected");
}
