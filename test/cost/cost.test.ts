// What tokens cost: prices × tokens by hand, cached tokens at the cached price, unknown models
// said to be unknown (never guessed), MODEL_PRICES checked at start; the usage report and the
// chat `usage` text from the daily counters; CSV cells that a spreadsheet would run escaped.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { addCost, costOf, costText, NO_COST, priceOf, priceTable } from "../../src/cost/prices.js";
import { usageReport } from "../../src/cost/usage-report.js";
import { usageCommandText, usageText } from "../../src/cost/usage-text.js";
import { ConfigError } from "../../src/errors.js";
import { addUsage, parseDay, usageFields, usageBetween } from "../../src/memory/run-records/usage-counters.js";
import { csvCell, usageCsvText } from "../../src/ops/explorer/pages/usage-page.js";
import { mapStore } from "../support/map-store.js";

const prices = priceTable();

describe("prices", () => {
  it("multiply tokens by the model's prices per million, by hand", () => {
    // gpt-4o-mini: $0.15 input, $0.075 cached input, $0.60 output per million.
    const tokens = { prompt: 1_000_000, cached: 400_000, completion: 200_000 };
    expect(costOf(prices, "gpt-4o-mini", tokens)).toBeCloseTo(600_000 * 0.15e-6 + 400_000 * 0.075e-6 + 200_000 * 0.6e-6, 12);
    expect(costOf(prices, "gpt-4o-mini", tokens)).toBeCloseTo(0.24, 12);
    // gpt-4o: $2.50 / $1.25 / $10.
    expect(costOf(prices, "gpt-4o", { prompt: 2_000, cached: 0, completion: 500 })).toBeCloseTo((2_000 * 2.5 + 500 * 10) / 1_000_000, 12);
  });

  it("price cached tokens at the cached price, never more than the prompt holds", () => {
    const uncached = costOf(prices, "gpt-4.1", { prompt: 10_000, cached: 0, completion: 0 })!;
    const cached = costOf(prices, "gpt-4.1", { prompt: 10_000, cached: 8_000, completion: 0 })!;
    expect(uncached - cached).toBeCloseTo((8_000 * (2 - 0.5)) / 1_000_000, 12);
    expect(costOf(prices, "gpt-4.1", { prompt: 100, cached: 500, completion: 0 })).toBeCloseTo((100 * 0.5) / 1_000_000, 12);
  });

  it("say the cost of a model without a price is unknown, and never take a near name's price", () => {
    expect(costOf(prices, "llama3.1:8b", { prompt: 10, cached: 0, completion: 10 })).toBeUndefined();
    expect(priceOf(prices, "gpt-4o-2024-08-06")).toEqual(priceOf(prices, "gpt-4o"));
    expect(priceOf(prices, "gpt-4o-mini-2024-07-18")).toEqual(priceOf(prices, "gpt-4o-mini"));
    expect(priceOf(prices, "gpt-4o-mini-custom")).toBeUndefined();
    const mixed = addCost(addCost(NO_COST, prices, "gpt-4o-mini", { prompt: 1_000_000, cached: 0, completion: 0 }), prices, "llama3", {
      prompt: 1_000,
      cached: 0,
      completion: 500,
    });
    expect(costText(mixed)).toBe("$0.15 + cost unknown for 1,500 tokens (llama3)");
    expect(costText(addCost(NO_COST, prices, "llama3", { prompt: 1, cached: 0, completion: 1 }))).toBe("cost unknown (llama3)");
    expect(costText(NO_COST)).toBe("$0");
  });

  it("take MODEL_PRICES over the defaults, with cached at the input price unless given, and stop the start on a bad one", () => {
    const config = loadConfig({
      MODEL_PRICES: '{"llama3": {"input": 0.2, "output": 0.4}, "gpt-4o": {"input": 2, "cached": 1, "output": 8}}',
    });
    const table = priceTable(config.prices);
    expect(priceOf(table, "llama3")).toEqual({ input: 0.2, cached: 0.2, output: 0.4 });
    expect(priceOf(table, "gpt-4o")).toEqual({ input: 2, cached: 1, output: 8 });
    expect(() => loadConfig({ MODEL_PRICES: "llama3=0.2" })).toThrow(ConfigError);
    expect(() => loadConfig({ MODEL_PRICES: "llama3=0.2" })).toThrow(/^MODEL_PRICES: expects JSON like/);
    expect(() => loadConfig({ MODEL_PRICES: '{"m": {"input": -1, "output": 1}}' })).toThrow(/MODEL_PRICES/);
    expect(() => loadConfig({ MODEL_PRICES: '{"m": {"input": 1}}' })).toThrow(/MODEL_PRICES/);
  });
});

const DAY = "2026-12-01";
const AT = Date.parse(`${DAY}T10:00:00Z`);
const entry = (channel: string, person: string, model: string, prompt: number, completion: number, more: object = {}) => ({
  at: AT,
  surface: "slack",
  workspace: "T1",
  channel,
  person,
  model,
  usage: { prompt, completion, cached: 0 },
  runs: 1,
  outcomes: { answered: 1 },
  ...more,
});

describe("the usage report", () => {
  it("sums the counters per day, channel, person and model, with costs and guard trip rates", () => {
    const fields: Record<string, number> = {};
    const add = (more: Record<string, number>) => {
      for (const [field, value] of Object.entries(more)) fields[field] = (fields[field] ?? 0) + value;
    };
    add(usageFields(entry("C1", "U1", "gpt-4o-mini", 1_000_000, 0)));
    add(usageFields(entry("C1", "U2", "gpt-4o", 1_000, 100, { outcomes: { guard: 1 }, guards: { repeat: 1 } })));
    add(usageFields(entry("C2", "U1", "llama3", 500, 50)));
    add(usageFields({ ...entry("C2", "U1", "gpt-4o-mini", 0, 1_000_000), runs: 0, outcomes: {}, facts: true }));
    const report = usageReport([parseDay(DAY, fields)], prices);
    expect(report.total.runs).toBe(3);
    expect(report.total.tokens).toMatchObject({ prompt: 1_001_500, completion: 1_000_150, factsCompletion: 1_000_000 });
    expect(costText(report.total.cost)).toBe(
      `$${(0.15 + 0.6 + (1_000 * 2.5 + 100 * 10) / 1_000_000).toFixed(2)} + cost unknown for 550 tokens (llama3)`,
    );
    expect(report.channels.map((line) => [line.id, line.runs])).toEqual([
      ["C1", 2],
      ["C2", 1],
    ]);
    expect(report.people.map((line) => line.id).sort()).toEqual(["U1", "U2"]);
    expect(report.models.map((line) => line.id)).toEqual(["gpt-4o-mini", "gpt-4o", "llama3"]);
    expect(report.guards).toEqual([{ guard: "repeat", trips: 1, rate: 1 / 3 }]);
    expect(report.outcomes).toEqual({ answered: 2, guard: 1 });
  });
});

describe("the chat usage text", () => {
  it("gives today's and this month's tokens and cost for the channel and the workspace", async () => {
    const store = mapStore();
    await addUsage(store, entry("C1", "U1", "gpt-4o-mini", 1_000_000, 0));
    await addUsage(store, { ...entry("C2", "U2", "gpt-4o-mini", 2_000_000, 0), at: Date.parse("2026-12-01T01:00:00Z") });
    await addUsage(store, { ...entry("C1", "U1", "gpt-4o-mini", 3_000_000, 0), at: Date.parse("2026-11-30T10:00:00Z") });
    const now = Date.parse("2026-12-01T12:00:00Z");
    expect(await usageCommandText(store, { surface: "slack", channel: "C1", workspace: "T1" }, prices, now)).toBe(
      [
        "Usage (UTC), today 2026-12-01 and this month:",
        "• This channel today: 1,000,000 tokens, 1 run, $0.15",
        "• This channel this month: 1,000,000 tokens, 1 run, $0.15",
        "• The workspace today: 3,000,000 tokens, 2 runs, $0.45",
        "• The workspace this month: 3,000,000 tokens, 2 runs, $0.45",
      ].join("\n"),
    );
    const november = await usageBetween(store, Date.parse("2026-11-01T00:00:00Z"), Date.parse("2026-11-30T23:00:00Z"));
    expect(usageText(november, { surface: "slack", channel: "C9" }, Date.parse("2026-11-30T23:00:00Z"), prices)).toContain(
      "• This channel today: 0 tokens ($0)",
    );
  });
});

describe("the usage CSV", () => {
  it("escapes every cell a spreadsheet would run as a formula, and quotes what needs quoting", () => {
    expect(["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "plain", 'a "b", c'].map(csvCell)).toEqual([
      "'=1+1",
      "'+1",
      "'-1",
      "'@SUM(A1)",
      "'\tx",
      '"\'\rx"',
      "plain",
      '"a ""b"", c"',
    ]);
    const fields = usageFields(entry('=HYPERLINK("http://x")', "@evil", "gpt-4o-mini", 10, 1));
    const csv = usageCsvText(usageReport([parseDay(DAY, fields)], prices));
    expect(csv).toContain(`channel,"'=HYPERLINK(""http://x"")",1,10,0,1,0,`);
    expect(csv).toContain("person,'@evil,1,");
    expect(csv.split("\r\n")[0]).toBe(
      "dimension,id,runs,input_tokens,cached_tokens,output_tokens,fact_extraction_tokens,cost_usd,unpriced_tokens",
    );
  });
});
