// The `npm run replay` process: the command's report on stdout, a problem on stderr, its exit code.
import { loadEnvFileOrExit } from "../../env-file.js";
import { replayCommand } from "./replay-command.js";

loadEnvFileOrExit();

process.exitCode = await replayCommand(
  process.argv.slice(2),
  process.env,
  (text) => process.stdout.write(`${text}\n`),
  (text) => process.stderr.write(`${text}\n`),
);
