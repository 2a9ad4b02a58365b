// The tests StrykerJS runs against each mutant (stryker.config.mjs): those that exercise the
// durable, money and access code in-process, directly or through the service. Left out: tests that
// run the code in child processes (crash and multi-process tests, the 20-process key file test,
// approval-stores: a child runs the code unmutated, so they could only slow the run), and the
// surface tests, which reach this code only through the service files already here.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "test/approval-binding.test.ts",
      "test/approval-key.test.ts",
      "test/approval-key-source.test.ts",
      "test/approval-key-link-fault.test.ts",
      "test/approval-store-records.test.ts",
      "test/approval.test.ts",
      "test/approval-item-edges.test.ts",
      "test/approval-item-resumes.test.ts",
      "test/loop-approval.test.ts",
      "test/signature.test.ts",
      "test/runs-checkpoint-store.test.ts",
      "test/runs-checkpoint-integrity.test.ts",
      "test/runs-checkpoint-deltas.test.ts",
      "test/runs-runner.test.ts",
      "test/runs-store-sets.test.ts",
      "test/intake-store-guards.test.ts",
      "test/runs-unrecorded.test.ts",
      "test/runs-unshown.test.ts",
      "test/runs-write-ledger.test.ts",
      "test/runs-write-ledger-states.test.ts",
      "test/runs-write-ledger-edges.test.ts",
      "test/runs-unknown-writes.test.ts",
      "test/bullmq-work-queue.test.ts",
      "test/bullmq-recovery.test.ts",
      "test/bullmq-queue-guards.test.ts",
      "test/bullmq-queue-faults.test.ts",
      "test/runs-stops.test.ts",
      "test/runs-stops-twice.test.ts",
      "test/runs-stops-faults.test.ts",
      "test/runs-stops-polls.test.ts",
      "test/run-stop.test.ts",
      "test/governance-edges.test.ts",
      "test/governance-service.test.ts",
      "test/governance-counters.test.ts",
      "test/governance-authority.test.ts",
      "test/governance-decisions.test.ts",
      "test/stored-data-compat.test.ts",
      "test/runs-record-guards.test.ts",
    ],
    // A mutant that hangs is cut short by Stryker's own timeout (a little over the time its tests took unmutated).
    testTimeout: 60_000,
    // Stryker reruns a file per mutant: without isolation the modules stay loaded between reruns
    // instead of being imported again each time.
    isolate: false,
    hookTimeout: 20_000,
  },
});
