// Where the approval key file lives, as an operator upgrading sees it: a fresh install makes it in
// the data folder next to the SQLite file (what a container keeps on its volume), and an install
// from before keeps using the approval.key an earlier version made in the working folder: an
// approval left waiting before the upgrade is asked again, and approved, it runs.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { temporaryFolder, type TemporaryFolder } from "../../support/temporary-folder.js";
import { until } from "../../support/until.js";

/** tsx's loader by path: the bot runs in a folder of its own, where "tsx" does not resolve. */
const TSX_LOADER = pathToFileURL(join(process.cwd(), "node_modules/tsx/dist/loader.mjs")).href;

let folder: TemporaryFolder;
beforeEach(async () => {
  folder = await temporaryFolder();
});
afterEach(async () => {
  await folder.remove();
});

/** `npm start` in the folder (console mode, the offline demo model), its input a pipe the test types into. */
function consoleIn(cwd: string) {
  const child = spawn(process.execPath, ["--import", TSX_LOADER, join(process.cwd(), "src/main.ts")], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let shown = "";
  child.stdout.on("data", (chunk: Buffer) => (shown += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (shown += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    type: (line: string) => child.stdin.write(`${line}\n`),
    waitFor: (text: string, from = 0) => until(() => shown.indexOf(text, from) >= 0, `"${text}"; got:\n${shown}`, 20_000),
    shown: () => shown,
    quit: async () => {
      child.stdin.end("/quit\n");
      return exited;
    },
    /** A deploy's SIGTERM: a question at the prompt is left undecided, and asked again at the next start. */
    leave: async () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

describe("the approval key file's folder", () => {
  it("a fresh install makes approval.key in the data folder, beside bot.sqlite", async () => {
    const bot = consoleIn(folder.path);
    await bot.waitFor("> ");
    bot.type("/demo write hello");
    await bot.waitFor("approve? [y/N] ");
    bot.type("y");
    await bot.waitFor("Saved to ");
    expect(await bot.quit()).toBe(0);
    expect(existsSync(join(folder.path, "data", "approval.key"))).toBe(true);
    expect(existsSync(join(folder.path, "approval.key"))).toBe(false);
  }, 60_000);

  it("an approval.key an earlier version left in the working folder is still used: a waiting approval survives the upgrade", async () => {
    const earlier = `${randomBytes(32).toString("base64")}\n`;
    await writeFile(join(folder.path, "approval.key"), earlier, { mode: 0o600 });
    const first = consoleIn(folder.path);
    await first.waitFor("> ");
    first.type("/demo write before the restart");
    await first.waitFor("approve? [y/N] ");
    expect(await first.leave()).toBe(0);

    const second = consoleIn(folder.path);
    await second.waitFor("approve? [y/N] ");
    second.type("y");
    await second.waitFor("Saved to ");
    expect(await second.quit()).toBe(0);
    expect(await readFile(join(folder.path, "data", "demo-notes.txt"), "utf8")).toContain("before the restart");
    expect(await readFile(join(folder.path, "approval.key"), "utf8")).toBe(earlier);
    expect(existsSync(join(folder.path, "data", "approval.key"))).toBe(false);
  }, 60_000);
});
