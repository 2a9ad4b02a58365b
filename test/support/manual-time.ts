// A clock and a sleep a test drives, for code that paces its writes (the throttled writer, the
// run view): sleeping moves the clock at once, so a test sees the pacing without waiting it out.
export interface ManualTime {
  now(): number;
  /** Every sleep asked for, in order. */
  readonly sleeps: number[];
  advance(ms: number): void;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export function manualTime(start = 0): ManualTime {
  let now = start;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleeps,
    advance(ms) {
      now += ms;
    },
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}
