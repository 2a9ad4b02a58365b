// How the soak tells its result: each check with what broke it (the first few, each naming its
// message and thread), how to run the same seed again, and the counts as JSON on the last line.
import type { CheckResult } from "./checks.js";
import type { SoakOptions } from "./options.js";

const SHOWN_PER_CHECK = 12;

export function printReport(
  results: readonly CheckResult[],
  options: SoakOptions,
  counts: Record<string, unknown>,
  folder: string,
): boolean {
  const failed = results.filter((result) => result.failures.length > 0);
  console.log("\n== soak checks ==");
  for (const result of results) {
    const mark = result.failures.length === 0 ? "ok  " : "FAIL";
    console.log(`${mark} ${result.says}${result.failures.length === 0 ? "" : `: ${result.failures.length}`}`);
    for (const failure of result.failures.slice(0, SHOWN_PER_CHECK)) console.log(`     - ${failure}`);
    if (result.failures.length > SHOWN_PER_CHECK) console.log(`     … and ${result.failures.length - SHOWN_PER_CHECK} more`);
  }
  const skip = options.skip.size > 0 ? ` --skip ${[...options.skip].join(",")}` : "";
  const again = `npm run soak -- --minutes ${options.minutes} --seed ${options.seed} --processes ${options.processes} --conversations ${options.conversations}${skip}`;
  if (failed.length > 0) {
    console.log(`\nseed ${options.seed} FAILED ${failed.map((result) => result.name).join(", ")}; the bots' logs are in ${folder}`);
    console.log(`run it again with: ${again}`);
  } else console.log(`\nseed ${options.seed} passed (${again})`);
  const checks = Object.fromEntries(results.map((result) => [result.name, result.failures.length]));
  console.log(JSON.stringify({ seed: options.seed, passed: failed.length === 0, checks, ...counts }));
  return failed.length === 0;
}
