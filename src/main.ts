// The process: `npm run start:prod` (node dist/main.js, the deploy command) and `npm start`
// (tsx). The wiring lives in app.ts; this file owns exit codes, signals, the 10 s hard-exit
// backstop, and logging of promise rejections nobody handled.
import { startApp, type RunningApp } from "./app.js";

const BACKSTOP_MS = 10_000;

let app: RunningApp | undefined;
let stopping = false;

function describe(reason: unknown): string {
  return reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
}

process.on("unhandledRejection", (reason) => {
  if (app) app.logger.error({ err: reason }, "unhandled promise rejection");
  else process.stderr.write(`Unhandled promise rejection: ${describe(reason)}\n`);
});

async function shutdown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  setTimeout(() => {
    process.stderr.write(`Shutdown took longer than ${BACKSTOP_MS / 1000} s; exiting anyway.\n`);
    process.exit(1);
  }, BACKSTOP_MS).unref();
  await app?.stop();
  process.exit(0);
}

function onSignal(signal: NodeJS.Signals): void {
  // A repeated signal (tsx and npm forward one of their own) must not cut the graceful stop short:
  // the stop is already bounded by the backstop, and work saved by then is resumed at the next start.
  if (stopping) {
    app?.logger.info({ signal }, "already shutting down; the runs in flight are saving their progress");
    return;
  }
  app?.logger.info({ signal }, "shutting down");
  void shutdown();
}

process.on("SIGTERM", onSignal);
process.on("SIGINT", onSignal);

const result = await startApp(process.env);
if (result.kind === "failed") {
  process.stderr.write(`${result.message}\n`);
  process.exit(1);
}
app = result.app;
void app.ended.then(shutdown);
