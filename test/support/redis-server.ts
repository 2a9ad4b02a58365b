// Starts a private redis-server child on 127.0.0.1 for tests and benchmarks: no persistence,
// killed on stop() and when this process exits.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Kills the server the hard way (SIGKILL), like a crash; resolves once it has exited. */
  stop(): Promise<void>;
}

const READY_LINE = "Ready to accept connections";
const START_TIMEOUT_MS = 10_000;
const MISSING = "redis-server is not installed; install it with `apt-get update && apt-get install -y redis-server`";

export function redisServerInstalled(): boolean {
  return spawnSync("redis-server", ["--version"]).status === 0;
}

/** Starts redis-server on `port` (a free one when omitted) and resolves once it accepts connections. */
export async function startRedisServer(port?: number): Promise<RedisServer> {
  const chosen = port ?? (await freePort());
  const child = spawn("redis-server", ["--port", String(chosen), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
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
  };
}

function untilReady(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => fail(new Error(`redis-server did not start within ${START_TIMEOUT_MS} ms:\n${output}`)), START_TIMEOUT_MS);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(error);
    };
    child.once("error", (error: NodeJS.ErrnoException) => fail(error.code === "ENOENT" ? new Error(MISSING) : error));
    child.once("exit", (code) => fail(new Error(`redis-server exited with ${code} before it was ready:\n${output}`)));
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes(READY_LINE)) {
        clearTimeout(timer);
        child.removeAllListeners("exit");
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
