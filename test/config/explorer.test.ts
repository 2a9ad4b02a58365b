// The run records' and the explorer's variables are checked at start like every other one: a
// bad value is one line naming it (their ranges are checked with every other one's in
// config.test.ts); the defaults are what docs/configuration.md shows.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";

describe("RUN_*, MODEL_PRICES and ADMIN_*", () => {
  it("default to full records of at most 64 KB, kept 30 days and 100,000 at most, no explorer", () => {
    const config = loadConfig({});
    expect(config.records).toEqual({ maxBytes: 65_536, content: "full", retentionDays: 30, retentionMax: 100_000 });
    expect(config.prices).toEqual({});
    expect(config.admin).toBeUndefined();
  });

  it("take the explorer's token, port and host", () => {
    expect(loadConfig({ ADMIN_TOKEN: "0123456789abcdef" }).admin).toEqual({ token: "0123456789abcdef", host: "127.0.0.1" });
    expect(loadConfig({ ADMIN_TOKEN: "0123456789abcdef", ADMIN_PORT: "9090", ADMIN_HOST: "0.0.0.0" }).admin).toEqual({
      token: "0123456789abcdef",
      port: 9090,
      host: "0.0.0.0",
    });
  });

  it.each([
    [{ RUN_RECORD_CONTENT: "everything" }, 'RUN_RECORD_CONTENT: expects full or metadata (got "everything")'],
    [{ ADMIN_TOKEN: "short" }, 'ADMIN_TOKEN: expects at least 16 characters (got "<hidden>")'],
    [{ ADMIN_PORT: "9090" }, 'ADMIN_PORT: expects ADMIN_TOKEN to be set too (the explorer is off without it) (got "9090")'],
  ])("stop the start with one line for %j", (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
