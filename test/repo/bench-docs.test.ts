// docs/benchmarks.md is written from what the benches printed, never by hand: the writer on
// recorded figures (a fixture of bench/results.json), a rerun of one bench replacing only its
// section, and the committed page being exactly what the committed records make.
import { copyFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { benchmarksDoc, loadResults, recordNow, writeDocs } from "../../bench/bench-docs.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { repoRoot, fixturePath } from "../support/repo-paths.js";

const fixture = fixturePath("bench-results.json");
let folder: { path: string; remove: () => Promise<void> };

beforeEach(async () => {
  folder = await temporaryFolder();
});
afterEach(async () => {
  await folder.remove();
});

describe("docs/benchmarks.md", () => {
  it("shows each recorded bench, in name order, with when, where and what it printed", async () => {
    const doc = benchmarksDoc(await loadResults(fixture));
    expect(doc.indexOf("## loop")).toBeLessThan(doc.indexOf("## tokens"));
    expect(doc).toContain("`npm run bench tokens`, 2026-11-30 21:14 UTC, node v20.20.2, 2 × Intel(R) Xeon(R) CPU @ 2.20GHz.");
    expect(doc).toContain("```text\ncount 4 KiB of prose: p50 0.21 ms, p99 0.40 ms\ncut 1 MiB to 2,000 tokens: p50 3.1 ms\n```");
    expect(doc).toContain("do not edit it by hand");
  });

  it("a rerun of one bench replaces its figures and keeps the others'", async () => {
    const results = join(folder.path, "results.json");
    const page = join(folder.path, "benchmarks.md");
    await copyFile(fixture, results);
    await writeDocs(results, page, { tokens: recordNow(["count 4 KiB of prose: p50 0.19 ms"], new Date("2026-12-02T03:00:00Z")) });
    const doc = await readFile(page, "utf8");
    expect(doc).toContain("count 4 KiB of prose: p50 0.19 ms");
    expect(doc).not.toContain("p50 0.21 ms");
    expect(doc).toContain("one step, logs off: p50 0.11 ms");
    expect(doc).toContain("`npm run bench tokens`, 2026-12-02 03:00 UTC");
    expect((await loadResults(results)).benches.loop?.recordedAt).toBe("2026-11-30 21:02");
  });

  it("a damaged results file is an error naming it, and a missing one is no figures yet", async () => {
    const results = join(folder.path, "results.json");
    await writeFile(results, JSON.stringify({ version: 2, benches: [] }));
    await expect(loadResults(results)).rejects.toThrow(`${results}: not a bench results file`);
    expect(benchmarksDoc(await loadResults(join(folder.path, "none.json")))).toContain("No figures are recorded yet.");
  });

  it("the committed page is exactly what the committed records make", async () => {
    const committed = await readFile(join(repoRoot, "docs", "benchmarks.md"), "utf8");
    expect(committed).toBe(benchmarksDoc(await loadResults(join(repoRoot, "bench", "results.json"))));
  });
});
