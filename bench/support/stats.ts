// Small helpers shared by the benchmarks: percentiles, a warm-up loop and a plain-text table.
import { performance } from "node:perf_hooks";

/** Nearest-rank percentile of unsorted samples (`p` in 0–100). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new Error("percentile of no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

/**
 * One measured call: `prepare` builds its input outside the clock, `work` runs on the clock.
 * Returns the milliseconds `work` took.
 */
export async function timeOnce<T>(prepare: () => T, work: (input: T) => Promise<unknown>): Promise<number> {
  const input = prepare();
  const started = performance.now();
  await work(input);
  return performance.now() - started;
}

/** Repeats `measureOnce` until at least `ms` milliseconds have passed; returns how many times it ran. */
export async function warmUp(ms: number, measureOnce: () => Promise<number>): Promise<number> {
  const until = performance.now() + ms;
  let runs = 0;
  while (performance.now() < until) {
    await measureOnce();
    runs++;
  }
  return runs;
}

/** The figures of `count` calls of `measureOnce`. */
export async function repeat(count: number, measureOnce: () => Promise<number>): Promise<number[]> {
  const figures: number[] = [];
  for (let index = 0; index < count; index++) figures.push(await measureOnce());
  return figures;
}

export const rssMegabytes = () => process.memoryUsage().rss / (1024 * 1024);

export function printTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): void {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: readonly string[]) => cells.map((cell, column) => cell.padStart(widths[column]!)).join("  ");
  console.log(line(header));
  console.log(widths.map((width) => "-".repeat(width)).join("  "));
  for (const row of rows) console.log(line(row));
}
