// Twenty bot processes starting at once on a machine without an approval key file: each one
// either creates it or reads the one another created, and all sign with the same key.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { temporaryFolder } from "../../support/temporary-folder.js";
import { supportPath } from "../../support/repo-paths.js";

const SCRIPT = supportPath("approval-key-process.ts");
const PROCESSES = 20;

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
beforeAll(async () => {
  folder = await temporaryFolder();
});
afterAll(async () => {
  await folder.remove();
});

/** Starts a process and resolves with it once it is ready; `result` resolves with the line it printed. */
async function starting(keyFile: string): Promise<{ go: () => void; result: Promise<string> }> {
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT, keyFile, join(folder.path, "data")], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let output = "";
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.startsWith("ready\n")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code} before it was ready: ${output}`)));
  });
  const exited = once(child, "exit");
  await ready;
  return {
    go: () => child.stdin!.end("go\n"),
    result: exited.then(() => output.slice("ready\n".length).trim()),
  };
}

describe("the approval key file", () => {
  it("created by 20 processes at once: none fails, all have the same key, the file is private", async () => {
    const keyFile = join(folder.path, "keys", "approval.key");
    const processes = await Promise.all(Array.from({ length: PROCESSES }, () => starting(keyFile)));
    for (const started of processes) started.go();
    const results = await Promise.all(processes.map((started) => started.result));
    expect(results.filter((line) => !line.startsWith("key "))).toEqual([]);
    expect(new Set(results).size).toBe(1);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
  }, 60_000);
});
