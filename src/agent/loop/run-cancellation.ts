// What can cut a run short from outside its steps: its deadline and a person's Stop. Both abort
// one signal that model calls and reads are cancelled by; a write is cancelled by the deadline
// alone (a Stop lets it finish). Time spent waiting for a person does not count.
import { deadlineStop } from "../guards/deadline.js";
import { stopOf } from "../guards/external-stops.js";
import type { GuardStop } from "../../contracts/types.js";
import type { StopSignal } from "./loop-types.js";

export class RunCancellation {
  /** Aborted by the deadline or a Stop: what model calls and reads are cancelled by. */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  /** Set when the run's time is up; `deadline` is that as a signal, made only for a write. */
  private expiredBy: Error | undefined;
  private deadline: AbortController | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly started = performance.now();
  /** Time spent waiting for a person mid-call (a tool's question): it does not count. */
  private heldMs = 0;
  private heldSince: number | undefined;
  private holds = 0;

  constructor(
    /** A person's Stop (reason: the GuardStop). */
    private readonly stop: StopSignal | undefined,
    private readonly runTimeoutMs: number,
    /** Run time spent before this process took the run up (a resume). */
    private readonly elapsedBefore: number,
  ) {
    this.signal = this.controller.signal;
    if (stop?.aborted) this.handleEvent();
    else stop?.addEventListener("abort", this, { once: true });
    const remaining = Math.max(0, runTimeoutMs - elapsedBefore);
    // A resumed run with no time left must not start its approved write before the timer fires.
    if (remaining === 0) this.expire();
    this.startTimer(remaining);
  }

  private startTimer(remaining: number): void {
    this.timer = setTimeout(() => this.expire(), remaining);
    this.timer.unref();
  }

  /** The deadline stands still until the returned release is called (a person answering a tool's question). Release is idempotent. */
  hold(): () => void {
    if (this.holds++ === 0) {
      clearTimeout(this.timer);
      this.heldSince = performance.now();
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds > 0 || this.heldSince === undefined) return;
      this.heldMs += performance.now() - this.heldSince;
      this.heldSince = undefined;
      if (!this.expiredBy) this.startTimer(this.remainingMs());
    };
  }

  /** The Stop's abort event (this object is the listener: no function made per run). */
  handleEvent(): void {
    this.controller.abort(this.stop?.reason);
  }

  /** The stop to end the run with now: a person's Stop, else the deadline; undefined while neither came. */
  interrupted(): GuardStop | undefined {
    if (this.stop?.aborted) return stopOf(this.stop.reason);
    return this.expiredBy ? deadlineStop(this.runTimeoutMs) : undefined;
  }

  /** A person's Stop, if one came. */
  stopped(): GuardStop | undefined {
    return this.stop?.aborted ? stopOf(this.stop.reason) : undefined;
  }

  /** The deadline alone, for a write that finishes (or times out) even after a Stop. */
  writeSignal(): AbortSignal {
    if (!this.deadline) {
      this.deadline = new AbortController();
      if (this.expiredBy) this.deadline.abort(this.expiredBy);
    }
    return this.deadline.signal;
  }

  elapsedMs(): number {
    const now = performance.now();
    const holding = this.heldSince === undefined ? 0 : now - this.heldSince;
    return this.elapsedBefore + (now - this.started) - this.heldMs - holding;
  }

  remainingMs(): number {
    return Math.max(0, this.runTimeoutMs - this.elapsedMs());
  }

  /** The run ended: no timer, no listener left behind. */
  dispose(): void {
    clearTimeout(this.timer);
    this.stop?.removeEventListener("abort", this);
  }

  private expire(): void {
    if (this.expiredBy) return;
    const reason = new Error("run deadline");
    this.expiredBy = reason;
    this.deadline?.abort(reason);
    this.controller.abort(reason);
  }
}
