// A process that claims an SQLite store's owner lock, for the lock's tests: it answers one JSON
// line per command read from stdin ("claim", "release"). LEASE_HOST stands for another machine;
// LEASE_HEARTBEAT_MS / LEASE_STALE_MS shorten the timing. With LEASE_IDLE=1 it claims once and
// then has nothing left to do, so it ends unless something (a heartbeat) keeps it alive.
import { createInterface } from "node:readline";
import { claimStoreOwnership, type OwnerClaim } from "../../src/memory/store-lease.js";

const env = process.env;
const options = {
  ...(env.LEASE_HOST ? { identity: { host: env.LEASE_HOST } } : {}),
  timing: { heartbeatMs: Number(env.LEASE_HEARTBEAT_MS ?? 5_000), staleMs: Number(env.LEASE_STALE_MS ?? 30_000) },
};
const databasePath = env.LEASE_DB ?? "";
const say = (answer: object) => process.stdout.write(`${JSON.stringify(answer)}\n`);

if (env.LEASE_IDLE === "1") {
  say(await claimStoreOwnership(databasePath, options));
} else {
  let claim: OwnerClaim | undefined;
  for await (const command of createInterface({ input: process.stdin })) {
    if (command === "claim") {
      claim = await claimStoreOwnership(databasePath, options);
      say(claim);
    } else if (command === "release") {
      if (claim?.kind === "owned") claim.release();
      claim = undefined;
      say({ released: true });
    }
  }
}
