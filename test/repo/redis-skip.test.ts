// Tests run anywhere: without redis-server the Redis suites skip with one line saying how to
// install it, and REQUIRE_REDIS=1 (set by .ci/run) turns that into a failure.
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { redisTestMode } from "../support/redis-server.js";

describe("Redis tests on a machine without redis-server", () => {
  it("run where it is installed, skip with how to install it where not, and fail when REQUIRE_REDIS=1", () => {
    expect(redisTestMode(true, {})).toEqual({ kind: "run" });
    expect(redisTestMode(true, { REQUIRE_REDIS: "1" })).toEqual({ kind: "run" });
    expect(redisTestMode(false, {})).toEqual({
      kind: "skip",
      note: "Skipping the Redis tests: redis-server is not installed (`apt-get install redis-server` to run them).",
    });
    expect(redisTestMode(false, { REQUIRE_REDIS: "1" })).toMatchObject({
      kind: "fail",
      message: expect.stringContaining("apt-get install redis-server"),
    });
  });

  it("vitest, with only node on PATH, skips a Redis suite with the one line; with REQUIRE_REDIS=1 the file fails", async () => {
    const bin = await mkdtemp(join(tmpdir(), "no-redis-"));
    try {
      await symlink(process.execPath, join(bin, "node"));
      const vitest = (env: Record<string, string>) =>
        spawnSync(process.execPath, ["node_modules/vitest/vitest.mjs", "run", "test/runs/queue/multi-process.test.ts"], {
          encoding: "utf8",
          env: { HOME: process.env.HOME ?? "", PATH: bin, ...env },
        });
      const skipped = vitest({});
      expect(skipped.status).toBe(0);
      expect(`${skipped.stdout}${skipped.stderr}`).toContain(
        "Skipping the Redis tests: redis-server is not installed (`apt-get install redis-server` to run them).",
      );
      const required = vitest({ REQUIRE_REDIS: "1" });
      expect(required.status).not.toBe(0);
      expect(`${required.stdout}${required.stderr}`).toContain("REQUIRE_REDIS=1 but redis-server is not installed");
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  }, 120_000);
});
