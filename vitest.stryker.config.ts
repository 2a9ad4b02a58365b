// The tests StrykerJS runs against each mutant (stryker.config.mjs): those that exercise the
// durable, money and access code in-process. Left out: tests that run the code in child
// processes (crash and multi-process tests, the 20-process key file test: a child runs the
// code unmutated, so they could only slow the run), and the slowest in-process files whose
// checks faster files make too (token-counter and tokenizer, whose megabyte texts make a
// merge mutant that loops take minutes to time out: tokenizer-repeats; approval-stores and
// run-stop: the approval and stop files), so the run stays well under an hour on 2 cores.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "test/approval-binding.test.ts",
      "test/approval-key.test.ts",
      "test/approval.test.ts",
      "test/loop-approval.test.ts",
      "test/runs-checkpoint-store.test.ts",
      "test/runs-checkpoint-integrity.test.ts",
      "test/runs-runner.test.ts",
      "test/runs-store-sets.test.ts",
      "test/runs-unrecorded.test.ts",
      "test/runs-write-ledger.test.ts",
      "test/runs-write-ledger-states.test.ts",
      "test/bullmq-work-queue.test.ts",
      "test/bullmq-recovery.test.ts",
      "test/runs-stops.test.ts",
      "test/runs-stops-twice.test.ts",
      "test/governance-edges.test.ts",
      "test/governance-service.test.ts",
      "test/governance-settings.test.ts",
      "test/governance-counters.test.ts",
      "test/tokenizer-repeats.test.ts",
    ],
    // Instrumented code runs the tokenizer tests several times slower; a mutant that hangs is
    // cut short by Stryker's own timeout (a little over the time its tests took unmutated).
    testTimeout: 60_000,
    // Stryker reruns a file per mutant: without isolation the modules (and the tokenizer's tables,
    // built once per process) stay loaded between reruns instead of being imported again each time.
    isolate: false,
    hookTimeout: 20_000,
  },
});
