import { describe, expect, it } from "vitest";
import { startApp } from "../../src/app.js";
import { ConfigError } from "../../src/errors.js";
import { createLogger, logFormatFrom, maskSecrets } from "../../src/logger.js";

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

describe("LOG_FORMAT", () => {
  it("is pretty on a terminal and JSON otherwise, unless set", () => {
    expect(logFormatFrom({}, true)).toBe("pretty");
    expect(logFormatFrom({}, false)).toBe("json");
    expect(logFormatFrom({ LOG_FORMAT: "json" }, true)).toBe("json");
    expect(logFormatFrom({ LOG_FORMAT: " pretty " }, false)).toBe("pretty");
    expect(logFormatFrom({ LOG_FORMAT: "" }, false)).toBe("json");
  });

  it("stops the start with one line on any other value", async () => {
    expect(() => logFormatFrom({ LOG_FORMAT: "xml" }, false)).toThrow(new ConfigError("LOG_FORMAT", "expects pretty or json", "xml"));
    expect(await startApp({ LOG_FORMAT: "yaml" })).toEqual({
      kind: "failed",
      message: 'Configuration error: LOG_FORMAT: expects pretty or json (got "yaml")',
    });
  });
});

describe("the pretty format", () => {
  function pretty(level: string) {
    const lines: string[] = [];
    const logger = createLogger(level, { write: (line: string) => void lines.push(line) }, "pretty");
    return { logger, lines };
  }

  it("is one line per entry: time, level, message, then the fields", () => {
    const { logger, lines } = pretty("info");
    logger.info({ surfaces: ["slack"], model: "gpt-4o-mini" }, "started");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: started \{"surfaces":\["slack"\],"model":"gpt-4o-mini"\}\n$/);
  });

  it("puts an error's message on its line, and its stack only at debug", () => {
    const failure = new Error("getaddrinfo ENOTFOUND slack.com");
    const info = pretty("info");
    info.logger.error({ err: failure, surface: "slack" }, "a surface failed to start");
    expect(info.lines.join("")).toMatch(/ERROR: a surface failed to start: getaddrinfo ENOTFOUND slack.com \{"surface":"slack"\}\n$/);
    expect(info.lines.join("")).not.toContain("    at ");
    const debug = pretty("debug");
    debug.logger.error({ err: failure }, "a surface failed to start");
    expect(debug.lines.join("")).toContain("    at ");
  });

  it("keeps secrets out, like the JSON lines", () => {
    const { logger, lines } = pretty("info");
    logger.warn({ apiKey: "sk-live-1234567890abcdef", err: new Error("refused xoxb-123-456-abcdef") }, "Slack refused xapp-1-A1-xyz");
    const text = lines.join("");
    expect(text).not.toMatch(/sk-live|xoxb-123|xapp-1-A1/);
    expect(text).toContain("[secret]");
  });
});
