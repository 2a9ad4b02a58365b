import { describe, expect, it } from "vitest";
import { compareSentOrder } from "../../../src/runs/intake/sent-order.js";

describe("the platform's order of messages", () => {
  it.each([
    ["1700000001.000100", "1700000001.000200", -1],
    ["1700000002.000100", "1700000001.000900", 1],
    ["1700000001.0001", "1700000001.000100", 0],
    ["999999999.000100", "1700000001.000100", -1],
    ["1200000000000000001", "1200000000000000010", -1],
    ["99", "100", -1],
  ])("%s against %s: %i", (a, b, sign) => {
    expect(Math.sign(compareSentOrder(a, b))).toBe(sign);
    expect(Math.sign(compareSentOrder(b, a))).toBe(-sign || 0);
  });
});
