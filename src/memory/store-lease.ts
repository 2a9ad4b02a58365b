// One bot process owns an SQLite store: it resumes its own unfinished work at start, so a second
// process on the same file would run the same messages twice. The owner holds a lock file beside
// the database and renews it every 5 s; a lock renewed within the last 30 s is never taken,
// whatever host wrote it. A lock whose holder is gone (not renewed for 30 s, or its pid dead on
// this host) is taken over with a log line naming the holder. Several processes share work only
// on Redis, where BullMQ coordinates them.
import { randomUUID } from "node:crypto";
import { closeSync, openSync, readFileSync, readlinkSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import type { Logger } from "../logger.js";
import {
  holderText,
  judgeLock,
  type LeaseTiming,
  type LockFile,
  lockText,
  OWNER_LOCK_TIMING,
  type OwnerIdentity,
  parseLock,
} from "./owner-lock.js";

export type OwnerClaim = { readonly kind: "owned"; release(): void } | { readonly kind: "taken"; readonly message: string };

/** Time as the lease sees it; tests pass their own. */
export interface LeaseClock {
  now(): number;
  /** Calls `tick` every `ms` without keeping the process alive; returns the stop. */
  every(ms: number, tick: () => void): () => void;
  sleep(ms: number): Promise<void>;
}

export interface ClaimOptions {
  readonly logger?: Logger;
  readonly identity?: Partial<OwnerIdentity>;
  readonly timing?: LeaseTiming;
  readonly clock?: LeaseClock;
}

const systemClock: LeaseClock = {
  now: Date.now,
  every(ms, tick) {
    const timer = setInterval(tick, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** True while a process with this id runs in this pid namespace (a process we may not signal still exists). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Which pids `process.kill(pid, 0)` can see: two containers with one hostname still differ here. */
function pidNamespace(): string | undefined {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return undefined;
  }
}

function thisProcess(given: Partial<OwnerIdentity> = {}): OwnerIdentity {
  const namespace = "pidNamespace" in given ? given.pidNamespace : pidNamespace();
  return {
    instance: given.instance ?? randomUUID(),
    pid: given.pid ?? process.pid,
    host: given.host ?? hostname(),
    ...(namespace === undefined ? {} : { pidNamespace: namespace }),
  };
}

const missing = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";

/** The file's text and what it says, or undefined when there is none. */
function readLock(path: string): { text: string; lock: LockFile } | undefined {
  try {
    const modifiedAt = statSync(path).mtimeMs;
    const text = readFileSync(path, "utf8");
    return { text, lock: parseLock(text, modifiedAt) };
  } catch (error) {
    if (missing(error)) return undefined;
    throw error;
  }
}

function createExclusive(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Readers see the old text or the new one, never half of it. */
function replace(path: string, content: string, instance: string): void {
  const temporary = `${path}.${instance}.tmp`;
  writeFileSync(temporary, content, { mode: 0o600 });
  renameSync(temporary, path);
}

function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (!missing(error)) throw error;
  }
}

/**
 * Claims the SQLite file at `databasePath` for this process. A fresh lock whose holder can't be
 * checked from here is watched: renewed means live (refused), no renewal within the stale limit
 * means gone (taken over). Rejects only for file-system errors.
 */
export async function claimStoreOwnership(databasePath: string, options: ClaimOptions = {}): Promise<OwnerClaim> {
  const lockPath = `${databasePath}.owner`;
  const me = thisProcess(options.identity);
  const timing = options.timing ?? OWNER_LOCK_TIMING;
  const clock = options.clock ?? systemClock;
  const poll = Math.max(1, Math.floor(timing.heartbeatMs / 5));
  const giveUpAt = clock.now() + timing.staleMs + timing.heartbeatMs;
  let watched: LockFile | undefined;

  for (;;) {
    if (createExclusive(lockPath, lockText(me, clock.now()))) return holding(lockPath, me, timing, clock, options.logger);
    const found = readLock(lockPath);
    if (found) {
      const verdict = judgeLock(found.lock, me, clock.now(), timing, isAlive);
      if (verdict.kind === "gone") {
        if (takeOver(lockPath, found.text, me, clock, timing)) {
          options.logger?.warn(
            { lock: lockPath, previousOwner: found.lock, why: verdict.why },
            `took over the store's owner lock from ${holderText(found.lock)} (${goneText(verdict.why, timing)})`,
          );
          return holding(lockPath, me, timing, clock, options.logger);
        }
      } else if (verdict.kind === "live" || (verdict.kind === "unsure" && renewedSince(watched, found.lock))) {
        return { kind: "taken", message: liveText(databasePath, lockPath, found.lock, timing) };
      } else if (verdict.kind === "unknowable") {
        return { kind: "taken", message: unknowableText(databasePath, lockPath, found.lock) };
      } else {
        watched = sameHolder(watched, found.lock) ? watched : found.lock;
      }
    }
    if (clock.now() > giveUpAt)
      return { kind: "taken", message: `another bot process keeps claiming ${databasePath} at the same moment; try again` };
    await clock.sleep(poll);
  }
}

function sameHolder(a: LockFile | undefined, b: LockFile): boolean {
  return a?.kind === "current" && b.kind === "current" && a.owner.instance === b.owner.instance;
}

function renewedSince(watched: LockFile | undefined, now: LockFile): boolean {
  return sameHolder(watched, now) && watched?.kind === "current" && now.kind === "current" && now.renewedAt !== watched.renewedAt;
}

/**
 * Replaces the lock only if it still holds `seen`. The guard file makes the check and the
 * replacement one step among processes that all found the same holder gone; a guard left by a
 * process that died in between is cleared once it is older than the stale limit.
 */
function takeOver(lockPath: string, seen: string, me: OwnerIdentity, clock: LeaseClock, timing: LeaseTiming): boolean {
  const guard = `${lockPath}.takeover`;
  if (!createExclusive(guard, me.instance)) {
    try {
      if (clock.now() - statSync(guard).mtimeMs >= timing.staleMs) removeIfPresent(guard);
    } catch (error) {
      if (!missing(error)) throw error;
    }
    return false;
  }
  try {
    if (readLock(lockPath)?.text !== seen) return false;
    const mine = lockText(me, clock.now());
    replace(lockPath, mine, me.instance);
    return readLock(lockPath)?.text === mine;
  } finally {
    removeIfPresent(guard);
  }
}

/** The lock is ours: renew it until release; a renewal that finds another holder stops and says so. */
function holding(lockPath: string, me: OwnerIdentity, timing: LeaseTiming, clock: LeaseClock, logger?: Logger): OwnerClaim {
  const ours = () => {
    const found = readLock(lockPath)?.lock;
    return found?.kind === "current" && found.owner.instance === me.instance ? { ours: true as const } : { ours: false as const, found };
  };
  const stop = clock.every(timing.heartbeatMs, () => {
    try {
      const check = ours();
      if (check.ours) return replace(lockPath, lockText(me, clock.now()), me.instance);
      stop();
      logger?.error(
        { lock: lockPath, holder: check.found },
        `lost the store's owner lock to ${check.found ? holderText(check.found) : "nobody (the file was removed)"}: it was not renewed for ${timing.staleMs / 1000} s; stop this process`,
      );
    } catch (error) {
      logger?.warn({ err: error, lock: lockPath }, "could not renew the store's owner lock; trying again at the next heartbeat");
    }
  });
  let released = false;
  return {
    kind: "owned",
    release() {
      if (released) return;
      released = true;
      stop();
      try {
        if (ours().ours) unlinkSync(lockPath);
      } catch {
        // Gone already, or unreadable: nothing of ours to release.
      }
    },
  };
}

function goneText(why: "stale" | "dead" | "unreadable", timing: LeaseTiming): string {
  if (why === "dead") return "its process is no longer running";
  if (why === "stale") return `not renewed for ${timing.staleMs / 1000} s`;
  return `its file could not be read and was ${timing.staleMs / 1000} s old`;
}

function liveText(databasePath: string, lockPath: string, found: LockFile, timing: LeaseTiming): string {
  return `another bot process (${holderText(found)}) already uses ${databasePath}; stop it first, or use STORE_URL=redis://… to run several processes (its lock ${lockPath} is renewed every ${timing.heartbeatMs / 1000} s and taken over once it is not renewed for ${timing.staleMs / 1000} s)`;
}

function unknowableText(databasePath: string, lockPath: string, found: LockFile): string {
  return `a bot process of an earlier version (${holderText(found)}) may still use ${databasePath}, and its lock can't be checked from this host; stop that process, or delete ${lockPath} if no bot runs there`;
}
