// Where everything that must survive a restart is kept, and how the work is split between processes.
import { dirname, isAbsolute, resolve } from "node:path";
import { area } from "./area.js";
import { oneOf, text, wholeNumber } from "./values.js";
import { variable } from "./variable.js";

export const STORE_URL = variable("STORE_URL", text(), {
  default: "sqlite://data/bot.sqlite",
  meaning:
    "`sqlite://relative/path.sqlite`, `sqlite:///absolute/path.sqlite`, or `redis://host:port` when several bot processes share the work (checked when the store opens)",
});

export const storeArea = area({
  title: "Store and processes",
  about: "One process on an SQLite file by default; several processes share the work through Redis.",
  variables: {
    storeUrl: STORE_URL,
    maxConcurrentRuns: variable("MAX_CONCURRENT_RUNS", wholeNumber(1, 1_000), {
      default: 8,
      meaning:
        "runs at once across conversations (one conversation always runs one at a time); per process with several processes on Redis",
    }),
    /** `ingress` only records and queues accepted messages, `worker` only runs them, `all` does both. */
    role: variable("BOT_ROLE", oneOf(["all", "ingress", "worker"]), {
      default: "all",
      meaning:
        "with a Redis `STORE_URL`: `ingress` only checks, records, queues and acknowledges messages; `worker` runs them; `all` does both (see [Several bot processes on one Redis](operations.md#several-bot-processes-on-one-redis))",
    }),
  },
});

/** The data folder: the SQLite file's folder (`data/` by default), or `data/` in the working folder with Redis. An absolute path. */
export function dataFolderOf(storeUrl: string, cwd: string = process.cwd()): string {
  if (!storeUrl.startsWith("sqlite://")) return resolve(cwd, "data");
  const path = storeUrl.slice("sqlite://".length);
  return dirname(isAbsolute(path) ? path : resolve(cwd, path));
}
