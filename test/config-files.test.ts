// The file settings: defaults, ranges (a bad value stops the start with one line naming it), and
// OPENAI_VISION.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { ConfigError } from "../src/errors.js";

function messageFor(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

describe("file settings", () => {
  it("default to 20 MiB per file, 8 per message, 30,000 tokens per run, 30 s per download, vision by model name", () => {
    const config = loadConfig({});
    expect(config.files).toEqual({
      maxBytes: 20_971_520,
      maxPerMessage: 8,
      totalTokens: 30_000,
      downloadTimeoutMs: 30_000,
      maxExpandedBytes: 5 * 20_971_520,
      readers: 2,
      readerMemoryMb: 512,
      readTimeoutMs: 30_000,
    });
    expect(config.model.vision).toBe("auto");
  });

  it("a PDF may expand to 5 × FILE_MAX_BYTES unless FILE_MAX_EXPANDED_BYTES says otherwise", () => {
    expect(loadConfig({ FILE_MAX_BYTES: "1048576" }).files.maxExpandedBytes).toBe(5_242_880);
    expect(loadConfig({ FILE_MAX_BYTES: "1048576", FILE_MAX_EXPANDED_BYTES: "2097152" }).files.maxExpandedBytes).toBe(2_097_152);
  });

  it("take values within their ranges", () => {
    const config = loadConfig({
      FILE_MAX_BYTES: "1024",
      FILE_MAX_PER_MESSAGE: "100",
      FILE_TOTAL_TOKENS: "1000000",
      FILE_DOWNLOAD_TIMEOUT_MS: "1000",
      FILE_MAX_EXPANDED_BYTES: "4294967296",
      FILE_READERS: "16",
      FILE_READER_MEMORY_MB: "256",
      FILE_READ_TIMEOUT_MS: "600000",
      OPENAI_VISION: "off",
    });
    expect(config.files).toEqual({
      maxBytes: 1_024,
      maxPerMessage: 100,
      totalTokens: 1_000_000,
      downloadTimeoutMs: 1_000,
      maxExpandedBytes: 4_294_967_296,
      readers: 16,
      readerMemoryMb: 256,
      readTimeoutMs: 600_000,
    });
    expect(config.model.vision).toBe("off");
  });

  it.each([
    ["FILE_MAX_BYTES", "1023", "FILE_MAX_BYTES: expects a whole number from 1024 to 104857600"],
    ["FILE_MAX_BYTES", "104857601", "FILE_MAX_BYTES: expects a whole number from 1024 to 104857600"],
    ["FILE_MAX_PER_MESSAGE", "0", "FILE_MAX_PER_MESSAGE: expects a whole number from 1 to 100"],
    ["FILE_TOTAL_TOKENS", "lots", "FILE_TOTAL_TOKENS: expects a whole number from 1000 to 1000000"],
    ["FILE_DOWNLOAD_TIMEOUT_MS", "999", "FILE_DOWNLOAD_TIMEOUT_MS: expects a whole number from 1000 to 600000"],
    ["FILE_MAX_EXPANDED_BYTES", "1048575", "FILE_MAX_EXPANDED_BYTES: expects a whole number from 1048576 to 4294967296"],
    ["FILE_READERS", "0", "FILE_READERS: expects a whole number from 1 to 16"],
    ["FILE_READER_MEMORY_MB", "128", "FILE_READER_MEMORY_MB: expects a whole number from 256 to 16384"],
    ["FILE_READ_TIMEOUT_MS", "soon", "FILE_READ_TIMEOUT_MS: expects a whole number from 1000 to 600000"],
    ["OPENAI_VISION", "maybe", "OPENAI_VISION: expects auto, on or off"],
  ])("%s=%s stops the start with one line naming it", (variable, value, expected) => {
    expect(messageFor({ [variable]: value })).toBe(`${expected} (got "${value}")`);
  });
});
