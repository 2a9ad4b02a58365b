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

describe("redaction stays cheap and exact", () => {
  it("censors secret fields one level down, as in a logged config object, and leaves deeper data as it is", () => {
    const { logger, lines } = capture();
    logger.info(
      { headers: { authorization: "Bearer abc", accept: "json" }, slack: { appToken: "x" }, deep: { a: { token: "kept" } } },
      "request",
    );
    const line = JSON.parse(lines.join(""));
    expect(line.headers).toEqual({ authorization: "[secret]", accept: "json" });
    expect(line.slack).toEqual({ appToken: "[secret]" });
    expect(line.deep).toEqual({ a: { token: "kept" } });
  });

  it("never changes the caller's object", () => {
    const { logger } = capture();
    const config = { apiKey: "sk-secret-value-123", nested: { token: "t" } };
    logger.info(config, "config");
    expect(config).toEqual({ apiKey: "sk-secret-value-123", nested: { token: "t" } });
  });

  it("writes the per-step line's fields as they are, and errors with their message and stack, tokens masked", () => {
    const { logger, lines } = capture();
    logger.info({ runId: "r1", step: 2, tools: ["calculator"], args: ["ab12"], durationMs: 0.5, tokens: 321, outcome: ["ok"] }, "step");
    logger.error({ err: new Error("boom xoxb-1-2-secret") }, "failed");
    const [step, failure] = lines.map((line) => JSON.parse(line));
    expect(step).toMatchObject({
      level: 30,
      runId: "r1",
      step: 2,
      tools: ["calculator"],
      args: ["ab12"],
      durationMs: 0.5,
      tokens: 321,
      outcome: ["ok"],
      msg: "step",
    });
    expect(failure.err).toMatchObject({ type: "Error", message: "boom [secret]" });
    expect(failure.err.stack).toMatch(/^Error: boom \[secret\]\n/);
  });

  it("masks a token in a message given with format arguments", () => {
    const { logger, lines } = capture();
    logger.warn("refused %s", "xapp-1-A1-xyz");
    expect(JSON.parse(lines.join("")).msg).toBe("refused [secret]");
  });
});
