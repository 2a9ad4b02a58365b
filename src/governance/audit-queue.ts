// Audit entries appended one at a time in the background, so they are numbered in the order they
// happened and the caller never waits for the store; a store failure is logged, never thrown.
import type { Logger } from "../logger.js";
import type { AuditDraft, AuditLog } from "./audit-log.js";
import { chainSettled } from "../settled-chain.js";

export interface AuditQueue {
  /** Queues the entry behind the ones before it. Never throws. */
  append(draft: AuditDraft): void;
  /** Resolves when every entry queued so far is written, also ones queued while waiting (tests, shutdown). */
  settled(): Promise<void>;
}

export function createAuditQueue(log: AuditLog, logger: Logger): AuditQueue {
  let tail: Promise<void> = Promise.resolve();
  return {
    append(draft) {
      tail = tail.then(() =>
        log.append(draft).then(
          () => undefined,
          (error: unknown) => logger.error({ err: error, audit: draft }, "could not write an audit entry"),
        ),
      );
    },
    settled: () => chainSettled(() => tail),
  };
}
