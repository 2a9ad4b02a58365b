// The app as startApp wires it, in this process: a fresh folder per test for its store (and for
// the files a test writes there, a settings file…), and the app stopped after the test. In console
// mode it runs on streams the test types into and reads, as `ada`.
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach } from "vitest";
import { startApp, type AppIo, type AppStart, type RunningApp } from "../../src/app.js";
import { temporaryFolder, type TemporaryFolder } from "./temporary-folder.js";
import { until } from "./until.js";

export interface ConsoleApp {
  readonly app: RunningApp;
  /** A line typed at the console. */
  type(line: string): void;
  /** Everything the console showed so far. */
  shown(): string;
  /** Waits (bounded) until the console shows `text`. */
  waitFor(text: string | RegExp, what?: string, timeoutMs?: number): Promise<void>;
}

export interface AppHarness {
  /** The current test's folder. */
  readonly folder: string;
  /** The SQLite store in the test's folder. */
  storeUrl(): string;
  /** startApp as it is; an app that started is stopped after the test. */
  start(env: NodeJS.ProcessEnv, io?: AppIo): Promise<AppStart>;
  /** The app in console mode with its store in the test's folder; a start that fails throws its one line. */
  startConsole(env?: NodeJS.ProcessEnv): Promise<ConsoleApp>;
}

/** Call at the top of a test file: registers the hooks that make each test's folder and stop its app. */
export function useAppHarness(): AppHarness {
  let folder: TemporaryFolder | undefined;
  let app: RunningApp | undefined;
  beforeEach(async () => {
    folder = await temporaryFolder();
  });
  afterEach(async () => {
    await app?.stop();
    app = undefined;
    await folder?.remove();
    folder = undefined;
  });
  const path = (): string => {
    if (!folder) throw new Error("the app harness's folder exists only inside a test");
    return folder.path;
  };
  const harness: AppHarness = {
    get folder() {
      return path();
    },
    storeUrl: () => `sqlite://${join(path(), "bot.sqlite")}`,
    async start(env, io) {
      const result = await startApp(env, io);
      if (result.kind === "started") app = result.app;
      return result;
    },
    async startConsole(env = {}) {
      const input = new PassThrough();
      const output = new PassThrough();
      let shown = "";
      output.on("data", (chunk: Buffer) => (shown += chunk.toString("utf8")));
      const result = await harness.start({ STORE_URL: harness.storeUrl(), ...env }, { input, output, username: "ada" });
      if (result.kind !== "started") throw new Error(result.message);
      return {
        app: result.app,
        type: (line) => void input.write(`${line}\n`),
        shown: () => shown,
        waitFor: (text, what = String(text), timeoutMs) =>
          until(() => (typeof text === "string" ? shown.includes(text) : text.test(shown)), what, timeoutMs),
      };
    },
  };
  return harness;
}
