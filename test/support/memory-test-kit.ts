// Small helpers for the memory tests: a bounded wait for a condition, a logger that keeps
// its lines, and a temporary folder.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino, type Logger } from "pino";

/** Polls `condition` until it holds; rejects naming `what` after `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000, intervalMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export interface CapturedLog {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** A pino logger whose lines end up in `lines` (parsed). */
export function capturingLogger(): { logger: Logger; lines: CapturedLog[]; warnings: () => CapturedLog[] } {
  const lines: CapturedLog[] = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line) as CapturedLog) });
  return { logger, lines, warnings: () => lines.filter((line) => line.level === 40) };
}

export async function temporaryFolder(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "bot-memory-"));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}
