import { describe, expect, it } from "vitest";
import { builtinTools } from "../../../src/agent/tools/builtin.js";
import { calculatorTool } from "../../../src/agent/tools/calculator.js";
import { createCurrentTimeTool } from "../../../src/agent/tools/current-time.js";
import type { ToolContext } from "../../../src/contracts/types.js";

const context: ToolContext = {
  signal: new AbortController().signal,
  runId: "run-1",
  origin: { surface: "console", conversationKey: "console:local", requester: { id: "me" }, place: {} },
};

const calculate = (expression: string) => calculatorTool.execute({ expression }, context);

describe("builtinTools", () => {
  it("holds calculator and current_time, both read-only", () => {
    expect(builtinTools.map((tool) => [tool.name, tool.effect])).toEqual([
      ["calculator", "read"],
      ["current_time", "read"],
    ]);
  });
});

describe("calculator", () => {
  it.each([
    ["1 + 2 * 3", "7"],
    ["(3+4)*5", "35"],
    ["10 - 4 - 3", "3"],
    ["12 / 4", "3"],
    ["-3 + 5", "2"],
    ["3 - -2", "5"],
    ["+4", "4"],
    ["-(2 + 3)", "-5"],
    ["2^10", "1024"],
    ["2 ** 10", "1024"],
    ["2^3^2", "512"],
    ["-2^2", "-4"],
    ["2^-1", "0.5"],
    ["0.1 + 0.2", "0.3"],
    [".5 + 1.25", "1.75"],
    ["1.5e3 / 3", "500"],
    ["17 % 5", "2"],
    ["((1))", "1"],
    ["1 / 3", "0.333333333333333"],
  ])("%s = %s", async (expression, expected) => {
    expect(await calculate(expression)).toBe(expected);
  });

  it.each([
    ["1 / 0", /Division by zero in "1 \/ 0"/],
    ["5 % (2 - 2)", /Modulo by zero/],
    ["2 +* 3", /Cannot parse "2 \+\* 3": unexpected "\*" at position 3/],
    ["", /The expression is empty/],
    ["   ", /The expression is empty/],
    ["(1 + 2", /the "\(" at position 0 is never closed/],
    ["1 + 2)", /unexpected "\)" at position 5/],
    ["2 +", /ends too early/],
    ["1.2.3", /unexpected "\.3"/],
    ["2(3)", /unexpected "\(" at position 1/],
    ["10 ^ 400", /too large to represent/],
    ["(-8) ^ 0.5", /not a real number/],
    ["process.exit()", /unexpected "p" at position 0 \(only numbers/],
    ["require('fs')", /unexpected "r"/],
    ["1; process.exit(1)", /unexpected ";"/],
    ["constructor.constructor('return 1')()", /unexpected "c"/],
    ["2 + 2 = 4", /unexpected "="/],
  ])("rejects %j", async (expression, message) => {
    await expect(calculate(expression)).rejects.toThrow(message);
  });

  it("bounds the expression length in its schema", () => {
    expect(calculatorTool.schema.safeParse({ expression: "1+".repeat(300) + "1" }).success).toBe(false);
    expect(calculatorTool.schema.safeParse({ expression: "1+1" }).success).toBe(true);
    expect(calculatorTool.schema.safeParse({ expression: 42 }).success).toBe(false);
  });
});

describe("current_time", () => {
  const instant = new Date("2025-01-14T14:04:05.678Z");
  const tool = createCurrentTimeTool(() => instant);

  it("defaults to UTC", async () => {
    const text = String(await tool.execute({}, context));
    expect(text).toContain("Tuesday 14 January 2025, 14:04:05 in UTC");
    expect(text).toContain("2025-01-14T14:04:05+00:00");
  });

  it("reads the clock in the zone asked for, with its offset", async () => {
    expect(String(await tool.execute({ timezone: "Europe/Paris" }, context))).toContain("2025-01-14T15:04:05+01:00");
    expect(String(await tool.execute({ timezone: "America/New_York" }, context))).toContain("2025-01-14T09:04:05-05:00");
    expect(String(await tool.execute({ timezone: "Asia/Kolkata" }, context))).toContain("19:34:05 in Asia/Kolkata (UTC+05:30)");
  });

  it("crosses the date line when the zone is ahead", async () => {
    expect(String(await tool.execute({ timezone: "Pacific/Auckland" }, context))).toContain("Wednesday 15 January 2025, 03:04:05");
  });

  it("accepts a zone name in any case and prints it properly", async () => {
    expect(String(await tool.execute({ timezone: "europe/paris" }, context))).toContain("in Europe/Paris");
  });

  it("rejects an unknown zone with a hint", async () => {
    await expect(tool.execute({ timezone: "Mars/Base" }, context)).rejects.toThrow(
      'Unknown time zone "Mars/Base": use an IANA name such as Europe/Paris',
    );
  });

  it("rejects a non-string zone in its schema", () => {
    expect(tool.schema.safeParse({ timezone: 5 }).success).toBe(false);
    expect(tool.schema.safeParse({}).success).toBe(true);
  });
});
