// How many sign-in tries the explorer takes: 5 a minute from each client address, and 60 failed
// ones a minute from everyone together, so many addresses (a botnet, or one client with a block of
// IPv6 addresses) can't guess faster than that either. The addresses are kept in bounded memory:
// when it is full the oldest entries go, first those whose minute is over, never all of them. As
// the limit for everyone lets at most 60 new addresses in a minute (plus right tokens), far fewer
// than fit, only entries whose minute is over are ever dropped: flooding can't reset a count.

const TRIES_PER_CLIENT = 5;
const FAILURES_FOR_EVERYONE = 60;
const WINDOW_MS = 60_000;
const CLIENTS_KEPT = 10_000;

export type SignInAllowance =
  | { readonly kind: "allowed" }
  /** `client`: this address tried too often; `everyone`: too many failed sign-ins from all addresses together. */
  | { readonly kind: "limited"; readonly by: "client" | "everyone"; readonly retryAfterMs: number };

export interface SignInLimits {
  /** Whether `client` may try now, counting nothing (a Bearer header with the right token is not a try). */
  blocked(client: string): SignInAllowance;
  /** Whether `client` may try now; an allowed try is counted against it. */
  allow(client: string): SignInAllowance;
  /** The allowed try had a wrong token: it counts toward the limit for everyone. */
  failed(): void;
}

export function createSignInLimits(clock: () => number): SignInLimits {
  // In the order their windows started (a new window is a new entry at the end), so the first is the oldest.
  const clients = new Map<string, { readonly windowStart: number; readonly count: number }>();
  // When the latest failures happened, oldest first: a sliding minute, at most FAILURES_FOR_EVERYONE long.
  const failures: number[] = [];

  const makeRoom = (now: number) => {
    for (const [client, entry] of clients) {
      if (clients.size < CLIENTS_KEPT && now - entry.windowStart < WINDOW_MS) return;
      clients.delete(client);
    }
  };

  const liveEntry = (client: string, now: number) => {
    const entry = clients.get(client);
    return entry !== undefined && now - entry.windowStart < WINDOW_MS ? entry : undefined;
  };

  const blocked = (client: string): SignInAllowance => {
    const now = clock();
    const live = liveEntry(client, now);
    if (live && live.count >= TRIES_PER_CLIENT) return { kind: "limited", by: "client", retryAfterMs: live.windowStart + WINDOW_MS - now };
    const oldestFailure = failures[0];
    if (failures.length >= FAILURES_FOR_EVERYONE && oldestFailure !== undefined && now - oldestFailure < WINDOW_MS)
      return { kind: "limited", by: "everyone", retryAfterMs: oldestFailure + WINDOW_MS - now };
    return { kind: "allowed" };
  };

  return {
    blocked,
    allow(client) {
      const held = blocked(client);
      if (held.kind === "limited") return held;
      const now = clock();
      const live = liveEntry(client, now);
      if (live) clients.set(client, { windowStart: live.windowStart, count: live.count + 1 });
      else {
        clients.delete(client);
        makeRoom(now);
        clients.set(client, { windowStart: now, count: 1 });
      }
      return { kind: "allowed" };
    },
    failed() {
      failures.push(clock());
      if (failures.length > FAILURES_FOR_EVERYONE) failures.shift();
    },
  };
}
