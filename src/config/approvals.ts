// A write waits for a person: how long, and the key that signs what waits in the store.
import { resolve } from "node:path";
import { area } from "./area.js";
import { secretText, text, wholeNumber } from "./values.js";
import { variable } from "./variable.js";

export const APPROVAL_KEY_FILE = variable("APPROVAL_KEY_FILE", text(), {
  default: "approval.key",
  meaning:
    "where the approval key is kept when `APPROVAL_SECRET` is not set (SQLite); created at the first start with mode 0600 (git ignores it); must be outside the store's folder",
});

export const approvalsArea = area({
  title: "Approvals",
  about:
    "A write tool's call waits for a person's decision; the waiting approval is stored with a signature (see [the approval key](operations.md#the-approval-key)).",
  variables: {
    approvalTimeoutMs: variable("APPROVAL_TIMEOUT_MS", wholeNumber(1_000, 86_400_000), {
      default: 900_000,
      meaning: "an unanswered approval expires after this (15 minutes)",
    }),
    /** Signs stored approvals; when unset the key comes from a shared chat secret (Redis) or approvalKeyFile (see approval-key.ts). */
    approvalSecret: variable("APPROVAL_SECRET", secretText(16), {
      secret: true,
      meaning: "signs stored approvals (the same on every process); recommended with Redis",
    }),
    approvalKeyFile: APPROVAL_KEY_FILE,
  },
  shape: ({ approvalKeyFile, ...approvals }) => ({
    ...approvals,
    /** An absolute path, never inside the SQLite store's folder (src/config/rules.ts). */
    approvalKeyFile: resolve(approvalKeyFile),
  }),
});
