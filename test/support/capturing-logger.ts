// A logger whose lines a test reads: the product's own (createLogger: its levels, its masking of
// secrets), each line parsed as it is written, and a wait for a line still to come.
import { createLogger, type Logger } from "../../src/logger.js";

export interface CapturedLog {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

export interface CapturingLogger {
  readonly logger: Logger;
  /** Every line so far, parsed, oldest first; it grows as the logger writes. */
  readonly lines: CapturedLog[];
  /** The lines logged at warn. */
  warnings(): CapturedLog[];
  /** Resolves with the first line, written already or still to come, that matches. */
  waitFor(match: (line: CapturedLog) => boolean): Promise<CapturedLog>;
}

const WARN_LEVEL = 40;

export function capturingLogger(level = "debug"): CapturingLogger {
  const lines: CapturedLog[] = [];
  const waiting = new Set<{ readonly match: (line: CapturedLog) => boolean; readonly resolve: (line: CapturedLog) => void }>();
  const logger = createLogger(level, {
    write(chunk: string) {
      for (const text of chunk.split("\n").filter(Boolean)) {
        const line = JSON.parse(text) as CapturedLog;
        lines.push(line);
        for (const waiter of waiting) {
          if (!waiter.match(line)) continue;
          waiting.delete(waiter);
          waiter.resolve(line);
        }
      }
    },
  });
  return {
    logger,
    lines,
    warnings: () => lines.filter((line) => line.level === WARN_LEVEL),
    waitFor(match) {
      const found = lines.find(match);
      return found ? Promise.resolve(found) : new Promise((resolve) => waiting.add({ match, resolve }));
    },
  };
}
