// The process: `npm run start:prod` (node dist/main.js, the deploy command) and `npm start`
// (tsx). The wiring lives in app.ts; this file owns exit codes, signals, the 10 s hard-exit
// backstop, and what happens to an error nothing else handled: a promise rejection is logged
// with its error and the process goes on; an uncaught exception is logged the same way and the
// process stops gracefully with exit code 1 (its state can't be trusted; the work in flight is
// saved at its checkpoints and the process manager's restart continues it). A client can cause
// neither: every listener answers whatever it is sent.
import { startApp, type RunningApp } from "./app.js";

const BACKSTOP_MS = 10_000;

let app: RunningApp | undefined;
let stopping = false;

function describe(thrown: unknown): string {
  return thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown);
}

/** Logs what was thrown with its stack (or the value itself, for a non-Error), and how it surfaced. */
function report(level: "error" | "fatal", message: string, origin: string, thrown: unknown): void {
  if (!app) return void process.stderr.write(`${message} (${origin}): ${describe(thrown)}\n`);
  const fields = thrown instanceof Error ? { err: thrown, origin } : { thrown: describe(thrown), origin };
  app.logger[level](fields, message);
}

process.on("unhandledRejection", (reason) =>
  report("error", "unhandled promise rejection; the process goes on", "unhandledRejection", reason),
);

process.on("uncaughtException", (error, origin) => {
  report("fatal", "uncaught exception; stopping gracefully", origin, error);
  if (!app) process.exit(1);
  void shutdown(1);
});

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  setTimeout(() => {
    process.stderr.write(`Shutdown took longer than ${BACKSTOP_MS / 1000} s; exiting anyway.\n`);
    process.exit(1);
  }, BACKSTOP_MS).unref();
  await app?.stop();
  process.exit(code);
}

function onSignal(signal: NodeJS.Signals): void {
  // A repeated signal (tsx and npm forward one of their own) must not cut the graceful stop short:
  // the stop is already bounded by the backstop, and work saved by then is resumed at the next start.
  if (stopping) {
    app?.logger.info({ signal }, "already shutting down; the runs in flight are saving their progress");
    return;
  }
  app?.logger.info({ signal }, "shutting down");
  void shutdown(0);
}

process.on("SIGTERM", onSignal);
process.on("SIGINT", onSignal);

const result = await startApp(process.env);
if (result.kind === "failed") {
  process.stderr.write(`${result.message}\n`);
  process.exit(1);
}
app = result.app;
void app.ended.then(() => shutdown(0));
