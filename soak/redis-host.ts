// The one Redis the bots share, with persistence (appendonly yes, fsync every second, as Redis
// ships), restarted the way an operator does: SHUTDOWN (which flushes the append-only file),
// down for a moment, then started again on the same port and folder.
import { setTimeout as sleep } from "node:timers/promises";
import { startRedisServer, type RedisServer } from "../test/support/redis-server.js";

const DOWN_FOR_MS = 1_000;

export interface RedisHost {
  readonly url: string;
  readonly port: number;
  /** Resolves once Redis answers again. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startRedisHost(dataDir: string): Promise<RedisHost> {
  const options = { dataDir, appendfsync: "everysec" as const };
  let server: RedisServer = await startRedisServer(undefined, options);
  const { port, url } = server;
  // One restart at a time: a second one asked for meanwhile comes after it.
  let restarting: Promise<void> = Promise.resolve();
  return {
    url,
    port,
    restart() {
      restarting = restarting.then(async () => {
        await server.shutdown();
        await sleep(DOWN_FOR_MS);
        server = await startRedisServer(port, options);
      });
      return restarting;
    },
    close: () => restarting.then(() => server.stop()),
  };
}
