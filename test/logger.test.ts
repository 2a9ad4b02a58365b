import { describe, expect, it } from "vitest";
import { createLogger, maskSecrets } from "../src/logger.js";

function capture() {
  const lines: string[] = [];
  const logger = createLogger("info", { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

describe("logs never carry secrets", () => {
  it("redacts secret fields, top level and nested", () => {
    const { logger, lines } = capture();
    logger.info({ apiKey: "sk-live-1234567890abcdef", config: { botToken: "xoxb-111-222-abc", signingSecret: "shh" } }, "starting");
    const line = lines.join("");
    expect(line).not.toContain("sk-live-1234567890abcdef");
    expect(line).not.toContain("xoxb-111-222-abc");
    expect(line).not.toContain("shh");
    expect(line).toContain("[secret]");
  });

  it("masks token-shaped text inside messages", () => {
    const { logger, lines } = capture();
    logger.warn("Slack refused xoxb-123-456-abcdef and xapp-1-A1-xyz; OpenAI refused sk-abcdefghijklmnop");
    const line = lines.join("");
    expect(line).not.toMatch(/xoxb-123|xapp-1-A1|sk-abcdefgh/);
    expect(JSON.parse(line).msg).toBe("Slack refused [secret] and [secret]; OpenAI refused [secret]");
  });

  it("leaves ordinary text alone", () => {
    expect(maskSecrets("task-list and sk-1 are fine")).toBe("task-list and sk-1 are fine");
  });
});
