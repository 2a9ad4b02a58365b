// Mutation testing (`npm run mutate`) of the durable, money and access code: what a crash,
// a forged record, a limit or an allow list must not get past. StrykerJS with its vitest
// runner; each mutant runs only the tests that cover it (perTest), from vitest.stryker.config.ts.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.stryker.config.ts" },
  coverageAnalysis: "perTest",
  mutate: [
    "src/runs/worker/checkpoint-store.ts",
    "src/runs/worker/write-ledger.ts",
    "src/runs/worker/unknown-writes.ts",
    "src/runs/intake/intake-store.ts",
    "src/runs/worker/answer-marks.ts",
    "src/runs/worker/run-stops.ts",
    "src/runs/queue/bullmq-mailbox.ts",
    "src/runs/queue/bullmq-work-queue.ts",
    "src/runs/worker/approval-item.ts",
    "src/runs/approvals/approval-store.ts",
    "src/runs/approvals/approval-key.ts",
    "src/agent/tools/signature.ts",
    "src/governance/limits.ts",
    "src/governance/access.ts",
    "src/governance/authority.ts",
  ],
  // TypeScript 7 has no JavaScript API, which Stryker's tsconfig rewrite needs; ours has no
  // `extends` or `references` to rewrite, so that step is pointed at a file that does not exist.
  tsconfigFile: "tsconfig.stryker-has-nothing-to-rewrite.json",
  // Log lines and their fields, and the constants evaluated at import (schemas, scripts) that would
  // make every mutant rerun every test, are left out: the run stays well under an hour on 2 cores.
  mutator: { excludedMutations: ["StringLiteral", "ObjectLiteral"] },
  ignoreStatic: true,
  // The second run on a branch tests only the mutants and tests that changed since the first.
  incremental: true,
  incrementalFile: "reports/stryker-incremental.json",
  ignorePatterns: ["dist", "data", "reports", "bench", ".stryker-tmp"],
  concurrency: 2,
  timeoutMS: 8000,
  reporters: ["clear-text", "progress", "json", "html"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
