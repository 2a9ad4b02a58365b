// Shows the latest status text, editing at most once per interval: updates that come
// faster are coalesced and only the newest is shown. One edit is in flight at a time, so
// edits never arrive out of order.
import type { Logger } from "../../logger.js";

export interface ThrottledStatusOptions {
  readonly minIntervalMs: number;
  readonly clock: () => number;
  readonly logger: Logger;
}

export class ThrottledStatus {
  private latest: string | undefined;
  private shown: string | undefined;
  private lastEditAt = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  /** `show` must not throw for expected failures; a rejection is logged and the next update goes on. */
  constructor(private readonly show: (text: string) => Promise<void>, private readonly options: ThrottledStatusOptions) {}

  update(text: string): void {
    if (this.closed) return;
    this.latest = text;
    this.pump();
  }

  /** Drops pending updates and waits for the edit in flight, so a final edit can follow it. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
  }

  private pump(): void {
    if (this.closed || this.inFlight || this.timer || this.latest === undefined || this.latest === this.shown) return;
    const wait = this.lastEditAt + this.options.minIntervalMs - this.options.clock();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, wait);
      return;
    }
    const text = this.latest;
    this.lastEditAt = this.options.clock();
    this.inFlight = this.show(text)
      .catch((error: unknown) => this.options.logger.warn({ err: error }, "could not update the progress message"))
      .finally(() => {
        this.shown = text;
        this.inFlight = undefined;
        this.pump();
      });
  }
}
