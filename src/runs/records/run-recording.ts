// Run records for one process, put together: the record store over the shared store, the
// recorder that watches every run, and the votes people give noted on the runs they are about.
// app.ts builds it for every process that runs work (the console too).
import type { Logger } from "pino";
import type { TaskOrigin } from "../../agent/types.js";
import type { Config } from "../../config.js";
import type { FeedbackBook } from "../../memory/feedback.js";
import { createRunRecordStore, type RunRecordStore } from "../../memory/run-records/record-store.js";
import type { KeyValueStore } from "../../memory/types.js";
import { createRunRecorder, type RunRecorder } from "./run-recorder.js";

export interface RunRecording {
  readonly records: RunRecordStore;
  readonly recorder: RunRecorder;
  /** The service with every 👍 / 👎 also noted on the run's record. */
  withVotes<S extends { readonly feedback: FeedbackBook }>(service: S): S;
  /** Waits for the records still being written (bounded); call before the store closes. */
  close(timeoutMs?: number): Promise<void>;
}

export function createRunRecording(deps: {
  readonly config: Config;
  readonly store: KeyValueStore;
  readonly logger: Logger;
  readonly personaOf?: (origin: TaskOrigin) => string | undefined;
}): RunRecording {
  const { config, store, logger } = deps;
  const records = createRunRecordStore(store, { days: config.records.retentionDays, max: config.records.retentionMax });
  const recorder = createRunRecorder({
    store,
    records,
    logger,
    content: config.records.content,
    maxBytes: config.records.maxBytes,
    ...(deps.personaOf ? { personaOf: deps.personaOf } : {}),
  });
  return {
    records,
    recorder,
    withVotes(service) {
      const book = service.feedback;
      const feedback: FeedbackBook = {
        ...book,
        async record(vote) {
          const recorded = await book.record(vote);
          await recorder.noteVote(vote.runId, vote.person.id, vote.rating);
          return recorded;
        },
      };
      return new Proxy(service, {
        get(target, property, receiver) {
          if (property === "feedback") return feedback;
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    },
    close: (timeoutMs) => recorder.close(timeoutMs),
  };
}
