// The Dockerfile and compose.yaml of docs/deploying.md can't be built or run here (no container
// runtime, no network): what is checked is that they pass their linters (as CI runs them), that
// the image is built and started the way the README says, and that the compose file's Redis is
// set up as docs/operations.md asks.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { repoRoot } from "../support/repo-paths.js";

const read = (name: string) => readFileSync(join(repoRoot, name), "utf8");
const startProd: string = JSON.parse(read("package.json")).scripts["start:prod"];

describe("the Dockerfile and compose.yaml", () => {
  it("pass their linters (npm run lint:docker, as CI runs it)", () => {
    const run = spawnSync("npm", ["run", "--silent", "lint:docker"], { cwd: repoRoot, encoding: "utf8" });
    expect({ status: run.status, output: `${run.stdout}${run.stderr}`.trim() }).toEqual({ status: 0, output: "" });
  }, 60_000);

  it("build as the README builds and start as start:prod starts, node itself as PID 1", () => {
    const dockerfile = read("Dockerfile");
    expect(dockerfile).toMatch(/^RUN npm ci\b/m);
    expect(dockerfile).toMatch(/^RUN npm run build\b/m);
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile);
    expect(cmd, "an exec-form CMD").not.toBeNull();
    expect((JSON.parse(cmd![1]!) as string[]).join(" ")).toBe(startProd.replace(/^exec /, ""));
  });

  it("leave secrets and local state out of the image", () => {
    const ignored = read(".dockerignore").split("\n");
    for (const entry of [".env", "*.key", "data", "node_modules", "bot.settings.json", "mcp.json"]) expect(ignored).toContain(entry);
  });

  it("run the bot on Redis with persistence and noeviction, and give it time to stop", () => {
    const compose = parse(read("compose.yaml")) as {
      services: Record<string, { environment?: Record<string, string>; command?: string[]; stop_grace_period?: string }>;
    };
    const { bot, redis } = compose.services;
    expect(bot?.environment?.STORE_URL).toBe("redis://redis:6379");
    expect(redis?.command?.join(" ")).toMatch(/--appendonly yes .*--maxmemory-policy noeviction/);
    // main.ts's backstop ends a stop within 10 s.
    expect(Number.parseInt(bot?.stop_grace_period ?? "0", 10)).toBeGreaterThan(10);
  });
});
