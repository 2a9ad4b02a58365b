// Bounded retries with doubling delays, for writes that must not be dropped when the store is
// briefly down (history and facts after an answer).

export interface RetryPolicy {
  readonly attempts: number;
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
}

/** About 10 s of trying: longer than a Redis restart or failover. */
export const STORE_RETRY: RetryPolicy = { attempts: 8, firstDelayMs: 200, maxDelayMs: 2_000 };

/** The delay before try `attempt` (1-based; the first try has none). */
export function retryDelay(policy: RetryPolicy, attempt: number): number {
  return attempt <= 1 ? 0 : Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** (attempt - 2));
}

/** Resolves with the first success; rejects with the last error once the tries are used up. */
export async function withRetries<T>(
  operation: () => Promise<T>,
  policy: RetryPolicy,
  onRetry?: (error: unknown, attempt: number) => void,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (attempt >= policy.attempts) throw error;
      onRetry?.(error, attempt);
      await new Promise((resolve) => setTimeout(resolve, retryDelay(policy, attempt + 1)));
    }
  }
}
