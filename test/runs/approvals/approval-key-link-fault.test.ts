// The key file on a filesystem without hard links: `link` fails with something other than EEXIST.
// The fault is injected (as root on one tmpfs a real link never fails so) for this test only:
// fs/promises' own `link` is swapped and its ESM bindings synced, then put back. Not vi.mock: the
// Stryker config runs files with isolate: false, where a mocked module stays loaded for the next file.
import fs, { readdir } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import { ApprovalKeyError } from "../../../src/errors.js";
import { approvalKeySource } from "../../../src/runs/approvals/approval-key.js";
import { capturingLogger } from "../../support/capturing-logger.js";
import { temporaryFolder } from "../../support/temporary-folder.js";

const realLink = fs.link;
beforeEach(() => {
  fs.link = async () => {
    throw Object.assign(new Error("EPERM: operation not permitted, link"), { code: "EPERM" });
  };
  syncBuiltinESMExports();
});
afterEach(() => {
  fs.link = realLink;
  syncBuiltinESMExports();
});

const folders: Array<{ remove: () => Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => folder.remove()));
});

describe("the approval key file where hard links fail", () => {
  it("is refused as 'could not be created' with the reason, and leaves no temp file", async () => {
    const folder = await temporaryFolder();
    folders.push(folder);
    const path = join(folder.path, "approval.key");
    const { logger } = capturingLogger();
    const loading = approvalKeySource(loadConfig({ STORE_URL: "sqlite://data/bot.sqlite", APPROVAL_KEY_FILE: path }), logger)();
    const error = await loading.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ApprovalKeyError);
    expect((error as Error).message).toContain(`The approval key file ${path} could not be created (EPERM: operation not permitted, link)`);
    expect(await readdir(folder.path)).toEqual([]);
  });
});
