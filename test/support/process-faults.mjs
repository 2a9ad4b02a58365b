// Preloaded into a bot child process (`node --import ./test/support/process-faults.mjs`): on
// SIGUSR2 it rejects a promise nobody handles (FAULT=rejection) or throws from a callback
// (FAULT=exception): the unexpected errors main.ts's process-level handlers exist for.
process.on("SIGUSR2", () => {
  if (process.env.FAULT === "exception")
    setImmediate(() => {
      throw new Error("injected exception");
    });
  else void Promise.reject(new Error("injected rejection"));
});
