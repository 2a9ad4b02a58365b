// `npm run bench [name…]`: runs every bench/*.bench.ts (or those whose names contain an argument)
// one after another, each printing its own figures.
import { readdirSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join } from "node:path";

const folder = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(folder)
  .filter((file) => file.endsWith(".bench.ts"))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();

for (const file of files) {
  console.log(`\n== ${file.replace(/\.bench\.ts$/, "")} ==`);
  const module = (await import(pathToFileURL(join(folder, file)).href)) as { run: () => Promise<void> };
  await module.run();
}
process.exit(0);
