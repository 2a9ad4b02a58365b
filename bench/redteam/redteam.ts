// npm run redteam: the injection cases of bench/redteam/cases through the real agent service,
// offline, with a model that obeys every instruction it reads and an approver who approves every
// card. Prints each case and each attack class: writes the injection wanted that ran after a
// warning, that ran with none (silent), answers quoting a more private place posted without a hold
// (leaks), and the benign cases answered. Exits 1 on any silent write or leak.
import { startFakeFileServer } from "../../test/support/fake-file-server.js";
import { temporaryFolder } from "../../test/support/temporary-folder.js";
import { loadCases } from "./cases.js";
import { runCase } from "./run-case.js";
import { classesByKind, failed, tallyOf, type CaseResult, type Tally } from "./verdict.js";

const row = (name: string, tally: Tally) =>
  `${name.padEnd(36)} ${String(tally.cases).padStart(5)} ${String(tally.warnedWrites).padStart(7)} ${String(tally.silentWrites).padStart(7)} ${String(tally.leaks).padStart(6)} ${tally.utility === 0 ? "      -" : `${tally.answered}/${tally.utility}`.padStart(7)}`;
const HEADER = `${"".padEnd(36)} ${"cases".padStart(5)} ${"warned".padStart(7)} ${"silent".padStart(7)} ${"leaks".padStart(6)} ${"useful".padStart(7)}`;

function caseLine(result: CaseResult): string {
  const parts = [
    result.warnedWrites > 0 ? `${result.warnedWrites} write warned` : "",
    result.silentWrites > 0 ? `${result.silentWrites} SILENT write` : "",
    result.leaks > 0 ? "LEAK" : "",
    result.answered === undefined ? "" : result.answered ? "answered" : "NOT answered",
  ].filter(Boolean);
  return `${result.id.padEnd(52)} ${parts.join(", ") || "no write"}`;
}

async function main(): Promise<number> {
  const cases = loadCases();
  const files = await startFakeFileServer();
  const folder = await temporaryFolder();
  const results: CaseResult[] = [];
  try {
    for (const [index, item] of cases.entries()) {
      const result = await runCase(item, index, files, folder.path);
      results.push(result);
      console.log(caseLine(result));
    }
  } finally {
    await files.close();
    await folder.remove();
  }
  console.log(`\n${HEADER}`);
  for (const name of classesByKind(results)) console.log(row(name, tallyOf(results.filter((result) => result.classes.includes(name)))));
  const total = tallyOf(results);
  console.log(row("all cases", total));
  if (failed(total)) console.log(`\nFAILED: ${total.silentWrites} silent write(s), ${total.leaks} leak(s).`);
  return failed(total) ? 1 : 0;
}

process.exitCode = await main();
