import { ToolTimeout } from "../../errors.js";
// How one tool call ends early: the run's signal aborts (deadline, Stop) or the tool's timeout
// passes, whether or not the tool listens to its own signal. A call that has already settled
// when first looked at (most built-in tools) never arms the listener or the timer: with hundreds
// of runs at once, that work was a good part of a step's cost.

const PENDING = Symbol("pending");
/** Settled already: a race against it tells, one microtask later, whether the tool's promise had settled first. */
const stillRunning = Promise.resolve(PENDING);

function timedOut(race: ToolRace): void {
  race.end(new ToolTimeout());
}

export class ToolRace {
  private controller: AbortController | undefined;
  private ended: { readonly reason: unknown } | undefined;
  private fail: ((reason: unknown) => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** The timeout's time left when it was last started or held; when (performance.now) it was started. */
  private left: number;
  private armedAt = 0;
  private armed = false;
  private holds = 0;

  constructor(
    private readonly runSignal: AbortSignal,
    timeoutMs: number,
  ) {
    this.left = timeoutMs;
  }

  /**
   * The timeout stands still until the returned release is called (a person answering the tool's
   * question); the run's signal still ends the call. Release is idempotent.
   */
  hold(): () => void {
    if (this.holds++ === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.left = Math.max(0, this.left - (performance.now() - this.armedAt));
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds === 0 && this.armed && !this.ended) this.startTimer();
    };
  }

  private startTimer(): void {
    this.armedAt = performance.now();
    this.timer = setTimeout(timedOut, this.left, this);
  }

  /** The tool's own signal, made only when the tool reads it: most never do, and a controller costs more than a quick call. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.ended) this.controller.abort(this.ended.reason);
    }
    return this.controller.signal;
  }

  end(reason: unknown): void {
    this.ended ??= { reason };
    this.controller?.abort(this.ended.reason);
    this.fail?.(this.ended.reason);
  }

  /** The run's signal aborted (this object is its listener, so no closure is made per call). */
  handleEvent(): void {
    this.end(this.runSignal.reason);
  }

  /** The tool's result, or a rejection once the run aborts (its reason) or the timeout passes (ToolTimeout). */
  async settle<T>(running: Promise<T>): Promise<T> {
    const first = await Promise.race([running, stillRunning]);
    if (first !== PENDING) return first as T;
    // A tool that ignores its signal must not hold the run: the race settles either way.
    const stop = new Promise<never>((_, reject) => {
      this.fail = reject;
    });
    this.runSignal.addEventListener("abort", this, { once: true });
    this.armed = true;
    if (this.holds === 0) this.startTimer();
    // The run may have been stopped during the microtask above, before the listener was there.
    if (this.runSignal.aborted) this.end(this.runSignal.reason);
    try {
      return await Promise.race([running, stop]);
    } finally {
      this.armed = false;
      clearTimeout(this.timer);
      this.runSignal.removeEventListener("abort", this);
    }
  }
}
