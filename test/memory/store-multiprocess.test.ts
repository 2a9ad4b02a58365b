import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { temporaryFolder } from "../support/temporary-folder.js";
import { supportPath } from "../support/repo-paths.js";

const run = promisify(execFile);
const script = supportPath("memory-process.ts");

/** Runs the helper in its own Node process; it must exit by itself (the store releases everything). */
async function inChildProcess(...args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", script, ...args], { timeout: 15_000 });
  return JSON.parse(stdout);
}

describe("one SQLite file shared by several processes", () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  let url: string;
  beforeAll(async () => {
    folder = await temporaryFolder();
    url = `sqlite://${join(folder.path, "data", "bot.sqlite")}`;
  });
  afterAll(async () => {
    await folder.remove();
  });

  it("facts and history written by one process are read by another", async () => {
    expect(await inChildProcess(url, "write", "slack:T1:C1:1", "User's name is Ann", "User works at Acme")).toEqual({
      added: 2,
      replaced: 0,
      skipped: 0,
    });
    const read = (await inChildProcess(url, "read", "slack:T1:C1:1")) as { facts: string[]; history: Array<{ user: string }> };
    expect(read.facts).toEqual(["User's name is Ann", "User works at Acme"]);
    expect(read.history.map((turn) => turn.user)).toEqual(["remember 2 facts"]);
  });

  it("processes writing different conversations at the same time all succeed", async () => {
    const conversations = ["discord:G1:C1", "discord:G1:C2", "discord:G1:C3"];
    await Promise.all(conversations.map((key, index) => inChildProcess(url, "write", key, `Fact from process ${"ABC"[index]}`)));
    for (const key of conversations) {
      const read = (await inChildProcess(url, "read", key)) as { facts: string[]; history: unknown[] };
      expect(read.facts, key).toHaveLength(1);
      expect(read.history, key).toHaveLength(1);
    }
  });

  it("setIfAbsent from racing processes lets exactly one win", async () => {
    const answers = (await Promise.all(Array.from({ length: 4 }, () => inChildProcess(url, "claim", "event:Ev123")))) as Array<{
      won: boolean;
    }>;
    expect(answers.filter((answer) => answer.won)).toHaveLength(1);
  });
});
