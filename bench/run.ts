// `npm run bench [name…]`: runs every bench/*.bench.ts (or those whose names contain an argument)
// one after another, each printing its own figures. With `-- --write-docs` what each printed is
// recorded and docs/benchmarks.md is written from the records (bench-docs.ts).
//
// Each bench runs in a process of its own: run in one process, a bench inherited the heap and the
// pending garbage of the ones before it (after the explorer's 100,000 stored runs the loop's RSS
// read 1 GB and the Slack bench's p99 tripled), so its figures depended on which benches ran first.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join } from "node:path";
import { recordNow, writeDocs, type RecordedBench } from "./bench-docs.js";

const WRITE_DOCS = "--write-docs";
/** How the parent asks a child process to run one bench file. */
const ONE = "--one";
const self = fileURLToPath(import.meta.url);
const folder = dirname(self);
const args = process.argv.slice(2);

/** In the child: the one bench, whose printed lines go to the parent through stdout. */
async function runOne(file: string): Promise<void> {
  const module = (await import(pathToFileURL(join(folder, file)).href)) as { run: () => Promise<void> };
  await module.run();
}

/** In the parent: the bench's lines as it printed them, shown as they come; undefined when it failed. */
function runInChild(file: string): Promise<string[] | undefined> {
  const child = spawn(process.execPath, ["--import", "tsx", self, ONE, file], { stdio: ["ignore", "pipe", "inherit"] });
  const printed: string[] = [];
  createInterface({ input: child.stdout }).on("line", (line) => {
    printed.push(line);
    console.log(line);
  });
  return new Promise((resolve) => {
    child.on("error", (error) => {
      console.error(`${file}: could not start (${error.message})`);
      resolve(undefined);
    });
    child.on("close", (code, signal) => {
      if (code === 0) return resolve(printed);
      console.error(`${file}: failed (${signal ?? `exit code ${code}`}); its figures are not recorded`);
      resolve(undefined);
    });
  });
}

async function runAll(): Promise<boolean> {
  const writing = args.includes(WRITE_DOCS);
  const filters = args.filter((arg) => arg !== WRITE_DOCS);
  const files = readdirSync(folder)
    .filter((file) => file.endsWith(".bench.ts"))
    .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
    .sort();
  const recorded: Record<string, RecordedBench> = {};
  let failed = false;
  for (const file of files) {
    const name = file.replace(/\.bench\.ts$/, "");
    console.log(`\n== ${name} ==`);
    const printed = await runInChild(file);
    if (printed) recorded[name] = recordNow(printed);
    else failed = true;
  }
  if (writing) {
    await writeDocs(join(folder, "results.json"), join(folder, "..", "docs", "benchmarks.md"), recorded);
    console.log(`\nwrote docs/benchmarks.md (${Object.keys(recorded).join(", ") || "no bench ran"})`);
  }
  return !failed;
}

const oneFile = args[0] === ONE ? args[1] : undefined;
if (oneFile) await runOne(oneFile);
// Benches leave servers and timers behind them; the figures are printed, so the process ends here.
process.exit(oneFile || (await runAll()) ? 0 : 1);
