import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claimStoreOwnership } from "../src/memory/store-lease.js";
import { temporaryFolder } from "./support/memory-test-kit.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
beforeEach(async () => {
  folder = await temporaryFolder();
});
afterEach(async () => {
  await folder.remove();
});

/** The pid of a process that ran and exited, so it is surely not alive. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""]);
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid as number;
}

describe("one process owns an SQLite store", () => {
  it("refuses a second live process with one line naming the owner and the way out", () => {
    const path = `${folder.path}/bot.sqlite`;
    const first = claimStoreOwnership(path);
    expect(first.kind).toBe("owned");
    // The test runner's parent stands for another live bot process.
    const second = claimStoreOwnership(path, process.ppid);
    expect(second).toMatchObject({ kind: "taken" });
    const message = second.kind === "taken" ? second.message : "";
    expect(message).toContain(`pid ${process.pid}`);
    expect(message).toContain("redis://");
    expect(message).not.toContain("\n");
    if (first.kind === "owned") first.release();
    expect(existsSync(`${path}.owner`)).toBe(false);
    expect(claimStoreOwnership(path, process.ppid).kind).toBe("owned");
  });

  it("takes over a file left by a process that died (kill -9), and an unreadable one", async () => {
    const path = `${folder.path}/bot.sqlite`;
    writeFileSync(`${path}.owner`, JSON.stringify({ pid: await deadPid(), host: hostname() }));
    expect(claimStoreOwnership(path).kind).toBe("owned");
    writeFileSync(`${path}.owner`, "garbage");
    expect(claimStoreOwnership(path, process.ppid).kind).toBe("owned");
  });

  it("release leaves a file another process took over alone", () => {
    const path = `${folder.path}/bot.sqlite`;
    const first = claimStoreOwnership(path);
    writeFileSync(`${path}.owner`, JSON.stringify({ pid: process.ppid, host: hostname() }));
    if (first.kind === "owned") first.release();
    expect(existsSync(`${path}.owner`)).toBe(true);
  });
});
