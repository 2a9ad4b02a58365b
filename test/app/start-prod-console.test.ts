// The production start: `npm run build`, then start:prod's `node … dist/main.js` in console mode
// as a child process. Its speed and memory are measured in bench/start.bench.ts, not here.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { temporaryFolder } from "../support/temporary-folder.js";
import { until } from "../support/until.js";

const BUILD_TIMEOUT_MS = 180_000;

beforeAll(() => {
  const build = spawnSync("npm", ["run", "build"], { encoding: "utf8" });
  // Type errors elsewhere still emit JavaScript; what matters here is that the entry point exists.
  if (!existsSync("dist/main.js")) throw new Error(`npm run build did not produce dist/main.js:\n${build.stdout}\n${build.stderr}`);
}, BUILD_TIMEOUT_MS);

describe("node dist/main.js", () => {
  it("start:prod sets a heap cap", () => {
    const script: string = JSON.parse(readFileSync("package.json", "utf8")).scripts["start:prod"];
    expect(script).toMatch(/^exec node --max-old-space-size=\d+ dist\/main\.js$/);
  });

  it("starts in console mode, answers through the real tools, and exits 0 on /quit", async () => {
    const folder = await temporaryFolder();
    try {
      const flags = (JSON.parse(readFileSync("package.json", "utf8")).scripts["start:prod"] as string)
        .split(/\s+/)
        .filter((word) => word.startsWith("--"));
      const child = spawn(process.execPath, [...flags, join(process.cwd(), "dist/main.js")], {
        cwd: folder.path,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "",
          STORE_URL: `sqlite://${join(folder.path, "data", "bot.sqlite")}`,
        },
      });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      await until(() => out.includes("\n> "), `the prompt; got:\n${out}`, 15_000);
      child.stdin.write("what is (3+4)*5\n");
      await until(() => /\b35\b/.test(out.slice(out.indexOf("(3+4)*5"))), `the answer; got:\n${out}`, 15_000);
      child.stdin.end("/quit\n");
      expect(await exited).toBe(0);
    } finally {
      await folder.remove();
    }
  });
});
