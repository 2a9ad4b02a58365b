// What the store still holds at the end that should be gone: intake records not done (a run
// that never finished) and runs paused for an approval that nobody will click any more. Read
// straight from Redis (the bot stores keys as given, values as JSON), so a record the bot could
// not read is found too.
import { Redis } from "ioredis";
import type { StoredLeftovers } from "./checks.js";
import type { Outcome } from "./taken-up.js";

async function keys(redis: Redis, pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 500);
    found.push(...batch);
    cursor = next;
  } while (cursor !== "0");
  return found;
}

const parsed = (raw: string | null): Record<string, unknown> | undefined => {
  try {
    return raw === null ? undefined : (JSON.parse(raw) as Record<string, unknown>);
  } catch {
    return undefined;
  }
};

/** keyv keeps a value as `{"value": …, "expires": …}`. */
const stored = (raw: string | null): Record<string, unknown> | undefined => {
  const wrapper = parsed(raw);
  return typeof wrapper?.value === "object" && wrapper.value !== null ? (wrapper.value as Record<string, unknown>) : undefined;
};

/** What the store holds at the end: the leftovers, and what became of every intake record (taken-up.ts), by intake id. */
export async function readLeftovers(redisUrl: string): Promise<StoredLeftovers & { readonly outcomes: ReadonlyMap<string, Outcome> }> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  try {
    const unfinishedIntake: Array<{ id: string; state: string; text: string }> = [];
    const outcomes = new Map<string, Outcome>();
    for (const key of await keys(redis, "intake:*")) {
      if (key === "intake:unfinished" || key.startsWith("intake:deleted:")) continue;
      const record = stored(await redis.get(key));
      const state = typeof record?.state === "string" ? record.state : "unreadable";
      const text = (name: string) => (typeof record?.[name] === "string" ? { [name]: record[name] as string } : {});
      outcomes.set(key.slice("intake:".length), { state, ...text("result"), ...text("into") });
      if (state === "done") continue;
      const task = record?.task as { text?: unknown } | undefined;
      unfinishedIntake.push({ id: key.slice("intake:".length), state, text: String(task?.text ?? "") });
    }
    // A member of the unfinished set whose record is gone or done is a leftover too: the next start would look for it.
    for (const member of await redis.smembers("intake:unfinished")) {
      const id = String(parsed(member)?.id ?? member);
      if (!unfinishedIntake.some((entry) => entry.id === id)) unfinishedIntake.push({ id, state: "listed as unfinished", text: "" });
    }
    const pendingApprovals: Array<{ runId: string; text: string }> = [];
    for (const key of await keys(redis, "approval:run:*")) {
      const raw = (await redis.get(key)) ?? "";
      pendingApprovals.push({ runId: key.slice("approval:run:".length), text: raw });
    }
    return { unfinishedIntake, pendingApprovals, outcomes };
  } finally {
    redis.disconnect();
  }
}
