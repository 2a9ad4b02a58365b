// One bot process starting up, for the approval key tests: reads or creates the approval key
// file named on the command line the way the bot does, once stdin says "go", and prints the
// key (base64) or the error on one line.
//   approval-key-process.ts <key-file> <store-folder>
import { createInterface } from "node:readline";
import { approvalKeySource } from "../../src/runs/approvals/approval-key.js";
import { loadConfig } from "../../src/config.js";
import { silentLogger } from "../../src/logger.js";

const [keyFile, storeFolder] = process.argv.slice(2);
if (!keyFile || !storeFolder) throw new Error("usage: approval-key-process.ts <key-file> <store-folder>");

const config = loadConfig({ APPROVAL_KEY_FILE: keyFile, STORE_URL: `sqlite://${storeFolder}/bot.sqlite` });
const lines = createInterface({ input: process.stdin });
process.stdout.write("ready\n");
lines.once("line", () => {
  approvalKeySource(config, silentLogger)()
    .then((key) => process.stdout.write(`key ${key.toString("base64")}\n`))
    .catch((error: unknown) => process.stdout.write(`error ${(error as Error).message}\n`))
    .finally(() => lines.close());
});
