// A write waits for a person: how long, and the key that signs what waits in the store.
import { join, resolve } from "node:path";
import { area, optionalPart } from "./area.js";
import { STORE_URL, dataFolderOf } from "./store.js";
import { secretText, text, wholeNumber } from "./values.js";
import { variable } from "./variable.js";

/** The approval key file's name in KEYS_DIR; earlier versions kept it under this name in the working folder. */
export const APPROVAL_KEY_NAME = "approval.key";

export const KEYS_DIR = variable("KEYS_DIR", text(), {
  shownDefault: "the data folder (`data/`, next to the SQLite file)",
  meaning:
    "where the key files the bot creates are kept (`approval.key`): keep it with the store, on storage that survives a redeploy (see [deploying](deploying.md#files-that-must-persist))",
});

export const APPROVAL_KEY_FILE = variable("APPROVAL_KEY_FILE", text(), {
  shownDefault: "`approval.key` in `KEYS_DIR`",
  meaning:
    "where the approval key is kept when `APPROVAL_SECRET` is not set (SQLite); created at the first start with mode 0600 (git ignores it). Unset, an `approval.key` an earlier version left in the working folder is still used",
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
    keysDir: KEYS_DIR,
    approvalKeyFile: APPROVAL_KEY_FILE,
  },
  uses: { storeUrl: STORE_URL },
  shape: ({ approvalKeyFile, keysDir, storeUrl, ...approvals }) => ({
    ...approvals,
    /** Absolute: where the key files are kept. */
    keysDir: keysDir === undefined ? dataFolderOf(storeUrl) : resolve(keysDir),
    /** Absolute: the approval key file, read or created. */
    approvalKeyFile: resolve(approvalKeyFile ?? join(keysDir === undefined ? dataFolderOf(storeUrl) : resolve(keysDir), APPROVAL_KEY_NAME)),
    /** With neither variable set: the file an earlier version made in the working folder, used while it exists and the new one does not. */
    ...optionalPart("approvalKeyFallback", approvalKeyFile === undefined && keysDir === undefined ? resolve(APPROVAL_KEY_NAME) : undefined),
  }),
});
