// The file settings: defaults, FILE_MAX_EXPANDED_BYTES's default from FILE_MAX_BYTES, and
// OPENAI_VISION. Their ranges are checked with every other one's in config.test.ts.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { configErrorFor } from "../support/config-error.js";

const messageFor = (env: Record<string, string>): string => configErrorFor(env).message;

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

  it("read OPENAI_VISION", () => {
    expect(loadConfig({ OPENAI_VISION: "off" }).model.vision).toBe("off");
    expect(loadConfig({ OPENAI_VISION: "on" }).model.vision).toBe("on");
  });

  it("refuse an OPENAI_VISION other than auto, on or off with one line naming it", () => {
    expect(messageFor({ OPENAI_VISION: "maybe" })).toBe('OPENAI_VISION: expects auto, on or off (got "maybe")');
  });
});
