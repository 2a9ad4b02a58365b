// The console adapter on PassThrough streams, over a real AgentService on a SQLite store in
// a temporary folder, keeping run records as app.ts does. Tests type lines and wait (bounded) for
// text to appear.
import { PassThrough } from "node:stream";
import { join } from "node:path";
import { createAgentService, type RunningAgentService } from "../../src/runs/service/create-agent-service.js";
import { connectDeps, type HarnessConnect } from "./connect-stand-in.js";
import type { Model, Tool } from "../../src/contracts/types.js";
import type { AgentService } from "../../src/runs/api/agent-service.js";
import { createConsoleSurface, type ConsoleSurface } from "../../src/adapters/console/console-adapter.js";
import { attach, type AttachedSurface } from "../../src/adapters/core/attach.js";
import { createGovernance } from "../../src/governance/governance.js";
import { fixedSettings } from "../../src/governance/settings-source.js";
import type { Settings } from "../../src/governance/settings-schema.js";
import type { ModelDescription } from "../../src/adapters/console/console-text.js";
import { loadConfig } from "../../src/config.js";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import type { TimerClock } from "../../src/schedules/local-slot-timer.js";
import type { RunRecord } from "../../src/memory/run-records/record-schema.js";
import { createRunRecording } from "../../src/ops/records/run-recording.js";
import { createLocalWorkQueue } from "../../src/runs/queue/local-work-queue.js";
import type { WorkQueue } from "../../src/runs/queue/work-queue.js";
import { harnessSchedules, startFiring, type HarnessSchedules } from "./harness-schedules.js";
import { temporaryFolder } from "./temporary-folder.js";
import { until } from "./until.js";
import { editSettingsFile, openSettingsFile, settingsOf, writeSettingsFile } from "./governance-harness.js";

/** The console under the core; `stop` ends the session as the app's shutdown does. */
export interface ConsoleAdapter {
  readonly closed: Promise<void>;
  stop(): Promise<void>;
}

export interface ConsoleHarness {
  /** The console's working directory (a temporary folder): /attach paths start here, answer files go under data/files. */
  readonly folder: string;
  readonly adapter: ConsoleAdapter;
  readonly service: RunningAgentService;
  readonly store: KeyValueStore;
  /** With `schedules` in the options: this process's schedules. */
  readonly schedules: HarnessSchedules | undefined;
  /** Everything written so far. */
  text(): string;
  /** Where the output ends now; pass it to waitFor to look only at what comes after. */
  mark(): number;
  type(line: string): void;
  /** Raw keys, e.g. "\x03" (Ctrl-C on a terminal). */
  press(keys: string): void;
  /** Ends the input, as Ctrl-D does. */
  endInput(): void;
  /** Waits (bounded) until `expected` shows up after `from`; returns where it ends. */
  waitFor(expected: string | RegExp, from?: number): Promise<number>;
  /** With `watchedSettings`: an admin rewrites the settings file; resolves once the console applied it. */
  editSettings(settings: Settings): Promise<void>;
  /** The run records written so far, newest first. */
  records(): Promise<RunRecord[]>;
  close(): Promise<void>;
}

export interface ConsoleHarnessOptions {
  readonly model: Model;
  readonly description?: ModelDescription;
  readonly tools?: readonly Tool[];
  readonly env?: Record<string, string>;
  readonly clock?: () => number;
  /** Streams that say they are a terminal, so readline turns Ctrl-C (\x03) into SIGINT. */
  readonly terminal?: boolean;
  /** The settings file's content (access, admins…). */
  readonly settings?: Settings;
  /** `settings` in a file the start opens and watches, as a bot process does BOT_SETTINGS; `editSettings` rewrites it. */
  readonly watchedSettings?: true;
  /** Parts of the service the console sees, replaced (to make them fail). */
  readonly serviceOverrides?: Partial<AgentService>;
  /** Schedules as app.ts wires them; `clock` is what only they read (a test moves it to fire slots). */
  readonly schedules?: { readonly clock?: TimerClock };
  /** Puts a fault between the service and its (in-process) work queue. */
  readonly wrapQueue?: (queue: WorkQueue) => WorkQueue;
  /** Tools that act as the person and the Connect links of their pauses. */
  readonly connect?: HarnessConnect;
  /** Tools that come and go (an MCP manager's), as app.ts hands them to the service. */
  readonly toolSource?: () => readonly Tool[];
}

function find(text: string, expected: string | RegExp, from: number): number | undefined {
  const rest = text.slice(from);
  if (typeof expected === "string") {
    const at = rest.indexOf(expected);
    return at < 0 ? undefined : from + at + expected.length;
  }
  const match = expected.exec(rest);
  return match ? from + match.index + match[0].length : undefined;
}

export async function startConsole(options: ConsoleHarnessOptions): Promise<ConsoleHarness> {
  const folder = await temporaryFolder();
  const config = loadConfig({
    STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}`,
    MEMORY_EXTRACT_FACTS: "false",
    MESSAGE_DEBOUNCE_MS: "0",
    ...options.env,
  });
  const store = await openStore(config.storeUrl, silentLogger);
  const settingsPath = join(folder.path, "bot.settings.json");
  if (options.watchedSettings) await writeSettingsFile(settingsPath, options.settings ?? settingsOf({}));
  const governance = createGovernance({
    source: options.watchedSettings ? await openSettingsFile(settingsPath, silentLogger) : fixedSettings(options.settings),
    store,
    logger: silentLogger,
    model: config.model.name,
    maxSteps: config.guards.maxSteps,
  });
  const scheduling = harnessSchedules(options.schedules, { config, store, logger: silentLogger, governance });
  const recording = createRunRecording({ config, store, logger: silentLogger });
  const service = recording.withRecords(
    createAgentService({
      config,
      model: options.model,
      store,
      logger: silentLogger,
      clock: options.clock,
      observers: [recording.recorder, ...(scheduling ? [scheduling.schedules.observer] : [])],
      ...(scheduling ? { tools: [scheduling.schedules.tool], showSlot: scheduling.schedules.showSlot } : {}),
      ...(options.wrapQueue ? { queue: options.wrapQueue(createLocalWorkQueue(silentLogger)) } : {}),
      runPolicy: governance.runPolicy,
      authority: governance.authority,
      ...connectDeps(options.connect, scheduling ? [scheduling.schedules.tool] : []),
      ...(options.toolSource ? { toolSource: options.toolSource } : {}),
    }),
  );
  const input = new PassThrough();
  const output = new PassThrough();
  if (options.terminal) Object.assign(output, { isTTY: true, columns: 80 });
  let written = "";
  output.on("data", (chunk: Buffer) => (written += chunk.toString("utf8")));
  const surface: ConsoleSurface = createConsoleSurface({
    service: options.serviceOverrides ? { ...service, ...options.serviceOverrides } : service,
    model: options.description ?? { kind: "demo" },
    logger: silentLogger,
    input,
    output,
    username: "ada",
    // Relative /attach paths and data/files/ in the test's own folder.
    cwd: folder.path,
    ...(options.tools ? { tools: options.tools } : {}),
  });
  const attached: AttachedSurface = attach(surface, {
    service,
    governance,
    store,
    logger: silentLogger,
    ...(scheduling ? { schedules: scheduling.schedules } : {}),
  });
  await attached.start();
  const adapter: ConsoleAdapter = { closed: surface.closed, stop: () => attached.stopIntake(1_000) };
  await service.start();
  if (scheduling) await startFiring(scheduling.schedules, service);

  return {
    folder: folder.path,
    adapter,
    service,
    store,
    schedules: scheduling,
    text: () => written,
    mark: () => written.length,
    type: (line) => void input.write(`${line}\n`),
    press: (keys) => void input.write(keys),
    endInput: () => void input.end(),
    async waitFor(expected, from = 0) {
      await until(() => find(written, expected, from) !== undefined, `${String(expected)} in the console output:\n${written.slice(from)}`);
      return find(written, expected, from)!;
    },
    editSettings(settings) {
      if (!options.watchedSettings) throw new Error("the console was started without watchedSettings");
      return editSettingsFile(settingsPath, governance.source, settings);
    },
    async records() {
      await recording.recorder.flushed();
      const { runs } = await recording.records.list({ limit: 200 });
      const loaded = await Promise.all(runs.map((run) => recording.records.load(run.runId)));
      return loaded.flatMap((load) => (load.kind === "found" ? [load.record] : []));
    },
    async close() {
      await adapter.stop();
      await scheduling?.schedules.close();
      await service.close(1_000);
      await attached.close();
      await recording.close();
      await governance.close();
      await store.close();
      await folder.remove();
    },
  };
}
