// A real AgentService that keeps run records (the recorder as its observer) on a real store,
// for the records, cost, cache and replay tests: the records store, the usage counters and
// helpers to wait until every record of the runs so far is written.
import type { SurfaceFiles } from "../../src/files/file-ref.js";
import type { Model, Tool } from "../../src/contracts/types.js";
import { loadConfig, type Config } from "../../src/config.js";
import { silentLogger, type Logger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { RunRecord } from "../../src/memory/run-records/record-schema.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import { createAgentService, type RunningAgentService } from "../../src/runs/service/create-agent-service.js";
import type { ExpiryHandler } from "../../src/runs/api/presenting.js";
import { createRunRecording, type RunRecording } from "../../src/ops/records/run-recording.js";

export interface RecordsHarness {
  readonly service: RunningAgentService;
  readonly store: KeyValueStore;
  readonly config: Config;
  readonly recording: RunRecording;
  /** The record of a run once every write so far is done. */
  record(runId: string): Promise<RunRecord>;
  close(): Promise<void>;
}

export async function startRecordedService(options: {
  readonly model: Model;
  readonly storeUrl: string;
  readonly tools?: readonly Tool[];
  readonly env?: Record<string, string>;
  readonly clock?: () => number;
  readonly logger?: Logger;
  readonly wrapStore?: (store: KeyValueStore) => KeyValueStore;
  /** The console's handler of approvals that expired unanswered. */
  readonly expired?: ExpiryHandler;
  /** How the console's files are fetched (sample-files.ts's urlFiles). */
  readonly files?: SurfaceFiles;
}): Promise<RecordsHarness> {
  const config = loadConfig({ STORE_URL: options.storeUrl, MEMORY_EXTRACT_FACTS: "false", MESSAGE_DEBOUNCE_MS: "0", ...options.env });
  const real = await openStore(config.storeUrl, silentLogger);
  const store = options.wrapStore ? options.wrapStore(real) : real;
  const logger = options.logger ?? silentLogger;
  const recording = createRunRecording({ config, store, logger });
  const service = recording.withRecords(
    createAgentService({ config, model: options.model, store, logger, observers: [recording.recorder], clock: options.clock }),
  );
  service.attach("console", {
    tools: options.tools ?? [],
    ...(options.expired ? { expired: options.expired } : {}),
    ...(options.files ? { files: options.files } : {}),
  });
  await service.start();
  return {
    service,
    store,
    config,
    recording,
    async record(runId) {
      await recording.recorder.flushed();
      const loaded = await recording.records.load(runId);
      if (loaded.kind !== "found") throw new Error(`no record of run ${runId}: ${loaded.kind}`);
      return loaded.record;
    },
    async close() {
      await service.close();
      await recording.close();
      await real.close();
    },
  };
}
