// docs/benchmarks.md is written, never edited: `npm run bench [name…] -- --write-docs` keeps
// what each bench printed in bench/results.json (the latest run of each, with when and on what
// machine) and writes the page from all of them. A bench that did not run keeps its last figures.
import { readFile, writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { z } from "zod";

const RecordedSchema = z.object({
  recordedAt: z.string(),
  node: z.string(),
  cpus: z.number().int().positive(),
  cpuModel: z.string(),
  /** Where the figures came from when no bench printed them here (figures carried over from older docs). */
  source: z.string().optional(),
  output: z.array(z.string()),
});
const ResultsSchema = z.object({ version: z.literal(1), benches: z.record(z.string(), RecordedSchema) });

export type RecordedBench = z.infer<typeof RecordedSchema>;
export type BenchResults = z.infer<typeof ResultsSchema>;

export const EMPTY_RESULTS: BenchResults = { version: 1, benches: {} };

/** The recorded results; an absent file is none yet, a malformed one is an error naming the file. */
export async function loadResults(path: string): Promise<BenchResults> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return EMPTY_RESULTS;
    throw error;
  }
  const parsed = ResultsSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${path}: not a bench results file (${parsed.error.issues[0]?.message ?? "invalid"})`);
  return parsed.data;
}

/** What one bench printed, as recorded now on this machine. */
export function recordNow(output: readonly string[], now: Date = new Date()): RecordedBench {
  const cores = cpus();
  return {
    recordedAt: now.toISOString().slice(0, 16).replace("T", " "),
    node: process.version,
    cpus: cores.length,
    cpuModel: cores[0]?.model.trim() ?? "unknown",
    output: [...output],
  };
}

/** `fresh` replaces the same benches in `results`; the others stay as they were. */
export function merged(results: BenchResults, fresh: Readonly<Record<string, RecordedBench>>): BenchResults {
  return { version: 1, benches: { ...results.benches, ...fresh } };
}

export function benchmarksDoc(results: BenchResults): string {
  const names = Object.keys(results.benches).sort();
  const lines = [
    "# Benchmarks",
    "",
    "Written by `npm run bench -- --write-docs` from what each bench printed (kept in",
    "`bench/results.json`); do not edit it by hand. `npm run bench <name> -- --write-docs` runs one",
    "bench again and rewrites this page; the other benches keep their last figures. What each",
    "bench measures is said at the top of its file in `bench/`. Figures depend on the machine:",
    "compare runs on the same one.",
  ];
  if (names.length === 0) lines.push("", "No figures are recorded yet.");
  for (const name of names) {
    const bench = results.benches[name]!;
    lines.push(
      "",
      `## ${name}`,
      "",
      `\`npm run bench ${name}\`, ${bench.recordedAt} UTC, node ${bench.node}, ${bench.cpus} × ${bench.cpuModel}.`,
    );
    if (bench.source) lines.push("", `(${bench.source})`);
    lines.push("", "```text", ...bench.output.map((line) => line.trimEnd()), "```");
  }
  return `${lines.join("\n")}\n`;
}

export async function writeDocs(resultsPath: string, docPath: string, fresh: Readonly<Record<string, RecordedBench>>): Promise<void> {
  const results = merged(await loadResults(resultsPath), fresh);
  await writeFile(resultsPath, `${JSON.stringify(results, null, 2)}\n`);
  await writeFile(docPath, benchmarksDoc(results));
}
