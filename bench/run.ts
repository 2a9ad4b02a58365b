// `npm run bench [name…]`: runs every bench/*.bench.ts (or those whose names contain an argument)
// one after another, each printing its own figures. With `-- --write-docs` what each printed is
// recorded and docs/benchmarks.md is written from the records (bench-docs.ts).
import { readdirSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join } from "node:path";
import { format } from "node:util";
import { recordNow, writeDocs, type RecordedBench } from "./bench-docs.js";

const WRITE_DOCS = "--write-docs";
const folder = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const writing = args.includes(WRITE_DOCS);
const filters = args.filter((arg) => arg !== WRITE_DOCS);
const files = readdirSync(folder)
  .filter((file) => file.endsWith(".bench.ts"))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();

const recorded: Record<string, RecordedBench> = {};
for (const file of files) {
  const name = file.replace(/\.bench\.ts$/, "");
  console.log(`\n== ${name} ==`);
  const printed: string[] = [];
  const print = console.log;
  // The bench's own lines are kept as printed, for the docs.
  console.log = (...values: unknown[]) => {
    printed.push(...format(...values).split("\n"));
    print(...values);
  };
  try {
    const module = (await import(pathToFileURL(join(folder, file)).href)) as { run: () => Promise<void> };
    await module.run();
  } finally {
    console.log = print;
  }
  recorded[name] = recordNow(printed);
}
if (writing) {
  await writeDocs(join(folder, "results.json"), join(folder, "..", "docs", "benchmarks.md"), recorded);
  console.log(`\nwrote docs/benchmarks.md (${Object.keys(recorded).join(", ") || "no bench ran"})`);
}
process.exit(0);
