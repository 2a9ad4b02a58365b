// The usage page's bar charts as a reader sees them: a month of days keeps its date labels apart
// (every few bars, and the last), and a chart with nothing in it says so instead of drawing nothing.
import { describe, expect, it } from "vitest";
import { barChart } from "../../../src/ops/explorer/charts.js";

const labelsOf = (svg: string) =>
  [...svg.matchAll(/<text x="(\d+)"[^>]*>([^<]*)<\/text>/g)].map((match) => ({ x: Number(match[1]), label: match[2] }));

describe("bar charts", () => {
  it("keeps a month's date labels at least 44 px apart, the last day labelled", () => {
    const days = Array.from({ length: 31 }, (_, index) => ({ label: `12-${String(index + 1).padStart(2, "0")}`, value: index + 1 }));
    const labels = labelsOf(String(barChart(days, "Tokens per day")));
    expect(labels.at(-1)?.label).toBe("12-31");
    expect(labels.length).toBeGreaterThan(5);
    for (let index = 1; index < labels.length; index++) expect(labels[index]!.x - labels[index - 1]!.x).toBeGreaterThanOrEqual(44);
  });

  it("labels every bar of a week", () => {
    const week = Array.from({ length: 7 }, (_, index) => ({ label: `12-0${index + 1}`, value: 1 }));
    expect(labelsOf(String(barChart(week, "Tokens per day")))).toHaveLength(7);
  });

  it("says there is nothing instead of drawing a chart of zeros", () => {
    const html = String(barChart([{ label: "12-01", value: 0 }], "Cost per day", 140, "No cost in these days."));
    expect(html).toContain("No cost in these days.");
    expect(html).not.toContain("<svg");
  });
});
