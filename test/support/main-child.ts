// `node --import tsx src/main.ts` as a child process with a clean environment (only what the
// test gives, plus PATH and HOME), its output collected as it comes.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { until } from "./until.js";

export interface MainProcess {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Bounded wait for `text` on stdout. */
  waitForOutput(text: string): Promise<void>;
  /** Resolves when the process exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnMain(env: Record<string, string>): MainProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForOutput: (text) => until(() => out.includes(text), `"${text}" on stdout; got:\n${out}\nstderr:\n${err}`, 15_000),
    exited,
  };
}
