// One file reader process, seen from the bot: started with a data-segment ceiling the kernel
// enforces (`ulimit -d`, which counts the heap and every typed array pdf.js or libvips
// allocates, where V8's own heap limit counts neither), a V8 heap limit below it, and its own
// IPC channel. It reads one file at a time; a read that passes its time limit, or whose run is
// stopped, kills the process, and a process that dies mid-read is a failed read, never a
// failed bot.
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ReadAnswerSchema, type ReadRequest, type ReadResult } from "./reader-protocol.js";

export interface ReaderProcessOptions {
  /** FILE_READER_MEMORY_MB: the process's whole data segment, V8 heap included. */
  readonly memoryMb: number;
}

export type ProcessRead =
  | { readonly kind: "answered"; readonly result: ReadResult; readonly rss: number }
  | { readonly kind: "timed_out" }
  | { readonly kind: "stopped" }
  /**
   * The process ended mid-read (or never started): it said it ran out of memory, or a signal ended it
   * (at the ceiling V8's own collector can fault: a failed allocation in a reader ends this way), or
   * it exited. `stderr` is its last words, for the log.
   */
  | { readonly kind: "crashed"; readonly cause: "out_of_memory" | "signal" | "exit"; readonly stderr: string };

type Cut = Extract<ProcessRead, { kind: "timed_out" | "stopped" }>;

const STDERR_KEPT = 2_000;
/** A start loads pdf.js and libvips (and, from source, compiles through tsx): seconds on a busy machine, not a file's doing. */
const START_TIMEOUT_MS = 60_000;
/** What V8, the C++ runtime and libvips write as they die for want of memory. */
const OUT_OF_MEMORY = /out of memory|allocation failed|heap limit|bad_alloc|cannot allocate/i;

/** Under tsx (`npm start`, the tests) the entry is the .ts beside this file, loaded through tsx; built, it is the .js. */
function readerCommand(memoryMb: number): { readonly file: string; readonly args: readonly string[] } {
  const here = import.meta.url;
  const fromSource = here.endsWith(".ts");
  const entry = fileURLToPath(new URL(`./reader-main.${fromSource ? "ts" : "js"}`, here));
  const loader = fromSource ? ["--import", pathToFileURL(createRequire(here).resolve("tsx")).href] : [];
  const node = [process.execPath, `--max-old-space-size=${Math.max(64, Math.floor(memoryMb / 2))}`, ...loader, entry];
  // `ulimit -d` takes KiB; a limit the shell can't set stops the start rather than run unbounded.
  return { file: "/bin/sh", args: ["-c", 'ulimit -d "$0" && exec "$@"', String(memoryMb * 1024), ...node] };
}

export class ReaderProcess {
  private readonly child: ChildProcess;
  private readonly ready: Promise<boolean>;
  private stderr = "";
  private exited = false;
  /** The signal that ended the process, when one did. */
  private signal: NodeJS.Signals | null = null;
  private readonly exit: Promise<void>;

  constructor(options: ReaderProcessOptions) {
    const command = readerCommand(options.memoryMb);
    this.child = spawn(command.file, command.args, { stdio: ["ignore", "ignore", "pipe", "ipc"], serialization: "advanced" });
    this.child.stderr?.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_KEPT);
    });
    this.exit = new Promise((resolve) => {
      const ended = () => {
        this.exited = true;
        resolve();
      };
      // "close", not "exit": its last words on stderr have arrived by then.
      this.child.once("close", (_code, signal) => {
        this.signal = signal;
        ended();
      });
      // A process that could not be started emits only this.
      this.child.once("error", (error) => {
        this.stderr += error.message;
        ended();
      });
    });
    // Its first message says it listens: a request sent before that could be lost.
    this.ready = new Promise((resolve) => {
      this.child.once("message", () => resolve(true));
      void this.exit.then(() => resolve(false));
    });
    // An idle reader never keeps the bot's process alive.
    this.idle();
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Never rejects. `timeoutMs` counts from the request; the process's start has a bound of its own. */
  async read(request: ReadRequest, timeoutMs: number, signal: AbortSignal): Promise<ProcessRead> {
    this.child.ref();
    this.child.channel?.ref();
    try {
      const started = await this.within(this.ready, START_TIMEOUT_MS, signal);
      if (started.kind !== "done") return started;
      if (!started.value) return this.crashed();
      const answer = new Promise<ProcessRead>((resolve) => {
        const onMessage = (message: unknown) => {
          const parsed = ReadAnswerSchema.safeParse(message);
          if (!parsed.success || parsed.data.id !== request.id) return;
          this.child.off("message", onMessage);
          resolve({ kind: "answered", result: parsed.data.result, rss: parsed.data.rss });
        };
        this.child.on("message", onMessage);
        void this.exit.then(() => resolve(this.crashed()));
      });
      this.child.send(request, (error) => {
        if (error) this.kill();
      });
      const answered = await this.within(answer, timeoutMs, signal);
      return answered.kind === "done" ? answered.value : answered;
    } finally {
      this.idle();
    }
  }

  kill(): void {
    if (!this.exited) this.child.kill("SIGKILL");
  }

  /** Resolves once the process is gone. */
  async killed(): Promise<void> {
    this.kill();
    await this.exit;
  }

  private idle(): void {
    this.child.unref();
    this.child.channel?.unref();
  }

  private crashed(): ProcessRead {
    const cause = OUT_OF_MEMORY.test(this.stderr) ? "out_of_memory" : this.signal ? "signal" : "exit";
    return { kind: "crashed", cause, stderr: this.stderr };
  }

  /** `work`, or timed_out / stopped, which kill the process: it may be deep in a hostile file. */
  private async within<T>(work: Promise<T>, timeoutMs: number, signal: AbortSignal): Promise<{ kind: "done"; value: T } | Cut> {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const cut = new Promise<Cut>((resolve) => {
      onAbort = () => resolve({ kind: "stopped" });
      if (signal.aborted) return onAbort();
      timer = setTimeout(() => resolve({ kind: "timed_out" }), timeoutMs);
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      const first = await Promise.race([work.then((value) => ({ kind: "done" as const, value })), cut]);
      if (first.kind !== "done") await this.killed();
      return first;
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener("abort", onAbort);
    }
  }
}
