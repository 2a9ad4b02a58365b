// `describe` for suites that need a real redis-server (see redisTestMode): where none is
// installed they are skipped with one line on stderr, or fail the file when REQUIRE_REDIS=1.
import { describe, it } from "vitest";
import { redisServerInstalled, redisTestMode } from "./redis-server.js";

const mode = redisTestMode(redisServerInstalled(), process.env);
if (mode.kind === "fail") throw new Error(mode.message);
if (mode.kind === "skip") process.stderr.write(`${mode.note}\n`);

export const redisAvailable = mode.kind === "run";
export const describeWithRedis = describe.skipIf(!redisAvailable);
export const itWithRedis = it.skipIf(!redisAvailable);
