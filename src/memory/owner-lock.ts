// The owner lock of an SQLite store, as data: what its file says and whether the process it
// names may still be alive. Today's record names its holder by a random instance id (in a
// container the pid is always 1) and the time of its last renewal; the first version held only
// the pid and the host, and a file left by that version still has to be judged.
import { z } from "zod";

/** How often the holder renews its lock, and after how long without a renewal it is taken over. */
export interface LeaseTiming {
  readonly heartbeatMs: number;
  readonly staleMs: number;
}

export const OWNER_LOCK_TIMING: LeaseTiming = { heartbeatMs: 5_000, staleMs: 30_000 };

/** Who holds (or wants) the lock. `pidNamespace` tells whether a pid can be checked from here at all. */
export interface OwnerIdentity {
  readonly instance: string;
  readonly pid: number;
  readonly host: string;
  readonly pidNamespace?: string;
}

/** `pid` and `host` stay at the top level, so a process of the first version still refuses a live owner on its host. */
const CurrentRecord = z.object({
  instance: z.string().min(1),
  pid: z.number().int(),
  host: z.string(),
  pidNamespace: z.string().optional(),
  renewedAt: z.number(),
});

const FirstVersionRecord = z.object({ pid: z.number().int(), host: z.string() });

export type LockFile =
  | { readonly kind: "current"; readonly owner: OwnerIdentity; readonly renewedAt: number }
  | { readonly kind: "first-version"; readonly pid: number; readonly host: string }
  /** Empty (being written), cut short or altered: only the file's age can tell. */
  | { readonly kind: "unreadable"; readonly modifiedAt: number };

export function lockText(owner: OwnerIdentity, renewedAt: number): string {
  return JSON.stringify({ ...owner, renewedAt });
}

export function parseLock(text: string, modifiedAt: number): LockFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { kind: "unreadable", modifiedAt };
  }
  const current = CurrentRecord.safeParse(data);
  if (current.success) {
    const { renewedAt, ...owner } = current.data;
    return { kind: "current", owner, renewedAt };
  }
  const first = FirstVersionRecord.safeParse(data);
  if (first.success) return { kind: "first-version", ...first.data };
  return { kind: "unreadable", modifiedAt };
}

export type Verdict =
  /** Its holder is gone: take the lock over. */
  | { readonly kind: "gone"; readonly why: "stale" | "dead" | "unreadable" }
  /** Its holder runs: refuse. */
  | { readonly kind: "live" }
  /** Fresh, and its holder can't be checked from here (another host or pid namespace): watch for a renewal. */
  | { readonly kind: "unsure" }
  /** A first-version lock from another host: it is never renewed, so nothing here can tell whether its holder runs. */
  | { readonly kind: "unknowable" };

/** `isAlive` answers for pids of this host and pid namespace only. */
export function judgeLock(
  found: LockFile,
  me: OwnerIdentity,
  now: number,
  timing: LeaseTiming,
  isAlive: (pid: number) => boolean,
): Verdict {
  // A pid equal to ours can't be another live process here: it is a holder that died before we got its pid.
  const pidGone = (pid: number) => pid === me.pid || !isAlive(pid);
  switch (found.kind) {
    case "current": {
      if (now - found.renewedAt >= timing.staleMs) return { kind: "gone", why: "stale" };
      const checkable = found.owner.host === me.host && found.owner.pidNamespace === me.pidNamespace;
      if (!checkable) return { kind: "unsure" };
      return pidGone(found.owner.pid) ? { kind: "gone", why: "dead" } : { kind: "live" };
    }
    case "first-version":
      if (found.host !== me.host) return { kind: "unknowable" };
      return pidGone(found.pid) ? { kind: "gone", why: "dead" } : { kind: "live" };
    case "unreadable":
      return now - found.modifiedAt >= timing.staleMs ? { kind: "gone", why: "unreadable" } : { kind: "unsure" };
  }
}

/** The holder as a log or error line names it. */
export function holderText(found: LockFile): string {
  if (found.kind === "current") return `instance ${found.owner.instance}, pid ${found.owner.pid} on ${found.owner.host}`;
  if (found.kind === "first-version") return `pid ${found.pid} on ${found.host}, an earlier version`;
  return "an unreadable lock";
}
