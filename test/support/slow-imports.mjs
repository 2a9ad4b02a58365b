// Preloaded into a bot child process (`node --import ./test/support/slow-imports.mjs`):
// SLOW_IMPORT="<part of a module path>=<ms>" makes that module load late, so a test can widen a
// window of the start (e.g. the surfaces attaching) that is otherwise a few hundred milliseconds.
import { register } from "node:module";

const [pattern, delayMs] = (process.env.SLOW_IMPORT ?? "").split("=");
if (pattern) register("./slow-import-hooks.mjs", import.meta.url, { data: { pattern, delayMs: Number(delayMs) } });
