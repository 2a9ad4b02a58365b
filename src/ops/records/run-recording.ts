// Run records for one process, put together: the record store over the shared store, the
// recorder that watches every run, the votes people give noted on the runs they are about, and a
// conversation's records deleted with its memory (`forget`).
// app.ts builds it for every process that runs work (the console too).
import type { Logger } from "../../logger.js";
import type { TaskOrigin } from "../../contracts/types.js";
import type { Config } from "../../config.js";
import type { PriceTable } from "../../cost/prices.js";
import type { FeedbackBook } from "../../memory/feedback.js";
import { createRunRecordStore, type RunRecordStore } from "../../memory/run-records/record-store.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { Forgotten, ServiceMemory } from "../../runs/api/agent-service.js";
import { createRunRecorder, type RunRecorder } from "./run-recorder.js";

export interface RunRecording {
  readonly records: RunRecordStore;
  readonly recorder: RunRecorder;
  /** The service with every 👍 / 👎 also noted on the run's record, and `forget` deleting the conversation's records too. */
  withRecords<S extends { readonly feedback: FeedbackBook; readonly memory: ServiceMemory }>(service: S): S;
  /** Waits for the records still being written (bounded); call before the store closes. */
  close(timeoutMs?: number): Promise<void>;
}

export function createRunRecording(deps: {
  readonly config: Config;
  readonly store: KeyValueStore;
  readonly logger: Logger;
  readonly personaOf?: (origin: TaskOrigin) => string | undefined;
  /** The prices in force: an endpoint with prices of its own has its tokens counted apart. */
  readonly prices?: PriceTable;
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
    ...(deps.prices ? { prices: deps.prices } : {}),
  });
  return {
    records,
    recorder,
    withRecords(service) {
      const book = service.feedback;
      const feedback: FeedbackBook = {
        ...book,
        async record(vote) {
          const recorded = await book.record(vote);
          await recorder.noteVote(vote.runId, vote.person.id, vote.rating);
          return recorded;
        },
      };
      // The facts go first: what the answer counts. Then the records, whose failure fails the command (it is told to try again).
      const forget = async (conversationKey: string): Promise<Forgotten> => {
        const forgotten = await service.memory.forget(conversationKey);
        const deleted = await records.deleteConversation(conversationKey);
        logger.info({ conversationKey, ...forgotten, records: deleted }, "forgot a conversation");
        return forgotten;
      };
      return new Proxy(service, {
        get(target, property, receiver) {
          if (property === "feedback") return feedback;
          if (property === "memory") return { ...service.memory, forget };
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    },
    close: (timeoutMs) => recorder.close(timeoutMs),
  };
}
