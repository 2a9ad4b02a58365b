// A process's descendants and their memory, read from /proc (Linux) as an operator's tools
// would: which file readers a bot process has, and the resident memory of the bot and every
// process it started, sampled from outside while it reads a file.
import { readdirSync, readFileSync } from "node:fs";
import { parentPid } from "./bot-child.js";

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Every live process whose ancestry reaches `root` (not `root` itself). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    let parent: number;
    try {
      parent = parentPid(pid);
    } catch {
      continue;
    }
    children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const found: number[] = [];
  for (let queue = [root]; queue.length > 0; ) {
    const next = children.get(queue.shift()!) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

/** The file reader processes among `root`'s descendants. */
export function readerPids(root: number = process.pid): number[] {
  return descendants(root).filter((pid) => (read(`/proc/${pid}/cmdline`) ?? "").includes("reader-main"));
}

/** Resident memory in bytes (0 for a process gone). */
export function residentBytes(pid: number): number {
  const kib = /^VmRSS:\s+(\d+)\s+kB$/m.exec(read(`/proc/${pid}/status`) ?? "")?.[1];
  return kib ? Number(kib) * 1024 : 0;
}

/** Resident memory of `root` and all its descendants, in bytes. */
export function treeResidentBytes(root: number): number {
  return [root, ...descendants(root)].reduce((sum, pid) => sum + residentBytes(pid), 0);
}
