// Who can see a place changes rarely but is asked for every answer that quotes one: a reader's
// answers are kept briefly (AUDIENCE_TTL_MS), and no more than AUDIENCE_ENTRIES of them. An
// "unknown" is never kept, so a passing platform error is asked again next time, not remembered.
import type { TaskOrigin } from "../../contracts/types.js";
import type { Audience, AudienceReader } from "../../runs/api/audiences.js";

export const AUDIENCE_TTL_MS = 60_000;
const AUDIENCE_ENTRIES = 500;

/** `keyOf`: the place's identity across workspaces (its workspace and channel). */
export function cachedAudiences(
  reader: AudienceReader,
  keyOf: (origin: TaskOrigin, channel: string) => string,
  clock: () => number = Date.now,
): AudienceReader {
  const kept = new Map<string, { readonly audience: Audience; readonly until: number }>();
  return {
    destinationOf: (origin) => reader.destinationOf(origin),
    async audienceOf(origin, channel) {
      const key = keyOf(origin, channel);
      const hit = kept.get(key);
      if (hit && hit.until > clock()) return hit.audience;
      kept.delete(key);
      const audience = await reader.audienceOf(origin, channel);
      if (audience.kind === "unknown") return audience;
      // A Map iterates in insertion order: the first key is the oldest entry.
      if (kept.size >= AUDIENCE_ENTRIES) kept.delete(kept.keys().next().value as string);
      kept.set(key, { audience, until: clock() + AUDIENCE_TTL_MS });
      return audience;
    },
  };
}
