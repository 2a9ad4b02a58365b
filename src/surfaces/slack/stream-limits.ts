// How long and how large one streamed Slack message may grow. Slack stops taking appends a few
// minutes after a stream starts (message_not_in_streaming_state) and refuses a message that grew
// too large (msg_too_long); a trace rotates into a new message in the same thread well before either.
export interface StreamLimits {
  /** A stream older than this is closed and the trace continues in a new one. */
  readonly maxAgeMs: number;
  /** The characters (chunk JSON) one streamed message may take before it rotates. */
  readonly maxChars: number;
  /** Updates are sent at most once per interval. */
  readonly intervalMs: number;
}

/** Slack ends a stream after about 5 minutes and a message past ~12,000 characters; stay well inside. */
export const DEFAULT_STREAM_LIMITS: StreamLimits = { maxAgeMs: 4 * 60_000, maxChars: 9_000, intervalMs: 500 };

/** Pure: whether the next write must go into a new message, given what the current one holds. */
export function mustRotate(state: { readonly ageMs: number; readonly chars: number }, nextChars: number, limits: StreamLimits): boolean {
  if (state.chars === 0) return false;
  return state.ageMs + limits.intervalMs >= limits.maxAgeMs || state.chars + nextChars > limits.maxChars;
}
