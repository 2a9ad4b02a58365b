// BOT_ROLE: which part of the work a process does when several share one Redis.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { ConfigError } from "../../src/errors.js";

const REDIS = "redis://127.0.0.1:6379";

describe("BOT_ROLE", () => {
  it("defaults to all", () => {
    expect(loadConfig({}).role).toBe("all");
  });

  it("accepts ingress and worker with a Redis store", () => {
    expect(loadConfig({ BOT_ROLE: "ingress", STORE_URL: REDIS }).role).toBe("ingress");
    expect(loadConfig({ BOT_ROLE: "worker", STORE_URL: REDIS }).role).toBe("worker");
  });

  it("refuses another value with one line naming the variable", () => {
    expect(() => loadConfig({ BOT_ROLE: "both" })).toThrow(new ConfigError("BOT_ROLE", "expects all, ingress or worker", "both"));
  });

  it("refuses a split role without Redis: nobody else could take the work", () => {
    expect(() => loadConfig({ BOT_ROLE: "worker" })).toThrow(/^BOT_ROLE: expects all unless STORE_URL is redis:\/\//);
  });
});
