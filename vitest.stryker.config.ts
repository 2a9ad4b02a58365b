// The tests StrykerJS runs against each mutant (stryker.config.mjs): those that exercise the
// durable, money and access code in-process, directly or through the service. Left out: tests that
// run the code in child processes (crash and multi-process tests, the 20-process key file test,
// approval-stores: a child runs the code unmutated, so they could only slow the run), and the
// surface tests, which reach this code only through the service files already here.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "test/runs/approvals/binding.test.ts",
      "test/runs/approvals/approval-key.test.ts",
      "test/runs/approvals/approval-key-source.test.ts",
      "test/runs/approvals/approval-key-link-fault.test.ts",
      "test/runs/approvals/approval-store.test.ts",
      "test/runs/approvals/approval.test.ts",
      "test/runs/worker/paused-item-edges.test.ts",
      "test/runs/worker/paused-item-resumes.test.ts",
      "test/agent/loop/approval.test.ts",
      "test/agent/tools/signature.test.ts",
      "test/runs/worker/checkpoint-store.test.ts",
      "test/runs/worker/checkpoint-integrity.test.ts",
      "test/runs/worker/checkpoint-deltas.test.ts",
      "test/runs/worker/runner.test.ts",
      "test/memory/store-sets.test.ts",
      "test/runs/intake/intake-store-guards.test.ts",
      "test/runs/worker/unrecorded.test.ts",
      "test/runs/worker/unshown.test.ts",
      "test/runs/worker/write-ledger.test.ts",
      "test/runs/worker/write-ledger-states.test.ts",
      "test/runs/worker/write-ledger-edges.test.ts",
      "test/runs/worker/unknown-writes.test.ts",
      "test/runs/queue/bullmq-work-queue.test.ts",
      "test/runs/queue/bullmq-recovery.test.ts",
      "test/runs/queue/bullmq-guards.test.ts",
      "test/runs/queue/bullmq-faults.test.ts",
      "test/runs/worker/run-stops.test.ts",
      "test/runs/worker/run-stops-twice.test.ts",
      "test/runs/worker/run-stops-faults.test.ts",
      "test/runs/worker/run-stops-polls.test.ts",
      "test/runs/worker/stop.test.ts",
      "test/governance/run-policy-edges.test.ts",
      "test/governance/service.test.ts",
      "test/memory/store-counters.test.ts",
      "test/governance/authority.test.ts",
      "test/governance/decisions.test.ts",
      "test/app/stored-data-compat.test.ts",
      "test/runs/worker/record-guards.test.ts",
    ],
    // A mutant that hangs is cut short by Stryker's own timeout (a little over the time its tests took unmutated).
    testTimeout: 60_000,
    // Stryker reruns a file per mutant: without isolation the modules stay loaded between reruns
    // instead of being imported again each time.
    isolate: false,
    hookTimeout: 20_000,
  },
});
