// One bot process owns an SQLite store: it resumes its own unfinished work at start, so a second
// process on the same file would run the same messages twice. The owner writes its pid into a
// file beside the database (created exclusively); a second process finds a live owner and is
// refused with one line, while a file left by a process that died (kill -9) is taken over.
// Several processes share work only on Redis, where BullMQ coordinates them.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";

export type OwnerClaim = { readonly kind: "owned"; release(): void } | { readonly kind: "taken"; readonly message: string };

/** True while a process with this id runs on this machine (a process we may not signal still exists). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readOwner(lockPath: string): { pid: number; host: string } | undefined {
  try {
    const parsed = JSON.parse(readFileSync(lockPath, "utf8")) as { pid?: unknown; host?: unknown };
    return typeof parsed.pid === "number" && typeof parsed.host === "string" ? { pid: parsed.pid, host: parsed.host } : undefined;
  } catch {
    return undefined;
  }
}

function createExclusive(lockPath: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, "wx", 0o600);
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

/** Claims the SQLite file at `databasePath` for this process. Throws only for file-system errors. */
export function claimStoreOwnership(databasePath: string, pid: number = process.pid): OwnerClaim {
  const lockPath = `${databasePath}.owner`;
  const content = JSON.stringify({ pid, host: hostname() });
  for (let attempt = 0; attempt < 2; attempt++) {
    if (createExclusive(lockPath, content)) {
      return {
        kind: "owned",
        release() {
          try {
            if (readOwner(lockPath)?.pid === pid) unlinkSync(lockPath);
          } catch {
            // Gone already: nothing to release.
          }
        },
      };
    }
    const owner = readOwner(lockPath);
    if (owner && owner.pid !== pid && owner.host === hostname() && isAlive(owner.pid)) {
      return {
        kind: "taken",
        message: `another bot process (pid ${owner.pid}) already uses ${databasePath}; stop it first, or use STORE_URL=redis://… to run several processes (delete ${lockPath} if that process is not a bot)`,
      };
    }
    // Left by a process that died (or unreadable): take it over.
    try {
      unlinkSync(lockPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return { kind: "taken", message: `another bot process is starting on ${databasePath} at the same moment; try again` };
}
