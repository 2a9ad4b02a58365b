// Starts a private redis-server child on 127.0.0.1 for tests and benchmarks: no persistence
// unless asked for, killed on stop() and when this process exits.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { connect, createServer } from "node:net";

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Kills the server the hard way (SIGKILL), like a crash; resolves once it has exited. */
  stop(): Promise<void>;
  /** Stops it the way an operator does (SHUTDOWN: the append-only file is flushed first); resolves once it has exited. */
  shutdown(): Promise<void>;
}

const READY_LINE = "Ready to accept connections";
const START_TIMEOUT_MS = 10_000;
const INSTALL = "apt-get install redis-server";
const MISSING = `redis-server is not installed; install it with \`${INSTALL}\``;

export function redisServerInstalled(): boolean {
  return spawnSync("redis-server", ["--version"]).status === 0;
}

export type RedisTestMode =
  | { readonly kind: "run" }
  | { readonly kind: "skip"; readonly note: string }
  | { readonly kind: "fail"; readonly message: string };

/**
 * Tests that need Redis run where redis-server is installed; elsewhere they skip with one line
 * saying how to install it, unless `REQUIRE_REDIS=1` (CI) makes the missing server a failure.
 */
export function redisTestMode(installed: boolean, env: NodeJS.ProcessEnv): RedisTestMode {
  if (installed) return { kind: "run" };
  if (env.REQUIRE_REDIS === "1") return { kind: "fail", message: `REQUIRE_REDIS=1 but ${MISSING}` };
  return { kind: "skip", note: `Skipping the Redis tests: redis-server is not installed (\`${INSTALL}\` to run them).` };
}

export interface RedisServerOptions {
  readonly dataDir?: string;
  /** With `dataDir`: how often the append-only file is synced (default always; Redis's own default is everysec). */
  readonly appendfsync?: "always" | "everysec";
}

/**
 * Starts redis-server on `port` (a free one when omitted) and resolves once it accepts connections.
 * With `dataDir` it persists every write there (append-only file, fsync always unless told), so a
 * server started again on the same folder after stop() or shutdown() has what the stopped one had.
 */
export async function startRedisServer(port?: number, options: RedisServerOptions = {}): Promise<RedisServer> {
  const chosen = port ?? (await freePort());
  const persistence = options.dataDir
    ? ["--dir", options.dataDir, "--appendonly", "yes", "--appendfsync", options.appendfsync ?? "always"]
    : ["--appendonly", "no"];
  const child = spawn("redis-server", ["--port", String(chosen), "--bind", "127.0.0.1", "--save", "", ...persistence], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const killOnExit = (): void => void child.kill("SIGKILL");
  process.once("exit", killOnExit);
  await untilReady(child);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  return {
    port: chosen,
    url: `redis://127.0.0.1:${chosen}`,
    async stop() {
      process.off("exit", killOnExit);
      child.kill("SIGKILL");
      await exited;
    },
    async shutdown() {
      process.off("exit", killOnExit);
      const connection = connect(chosen, "127.0.0.1");
      // SHUTDOWN has no reply: the server closes every connection as it exits.
      connection.on("error", () => {});
      connection.end("SHUTDOWN\r\n");
      await exited;
    },
  };
}

function untilReady(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(
      () => fail(new Error(`redis-server did not start within ${START_TIMEOUT_MS} ms:\n${output}`)),
      START_TIMEOUT_MS,
    );
    const fail = (error: Error): void => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(error);
    };
    child.once("error", (error: NodeJS.ErrnoException) => fail(error.code === "ENOENT" ? new Error(MISSING) : error));
    const early = (code: number | null): void => fail(new Error(`redis-server exited with ${code} before it was ready:\n${output}`));
    child.once("exit", early);
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes(READY_LINE)) {
        clearTimeout(timer);
        // Only this wait's own listeners go: the caller's exit listener, added once ready, must stay.
        child.off("exit", early);
        child.stdout?.off("data", collect).resume();
        child.stderr?.off("data", collect).resume();
        resolve();
      }
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}
