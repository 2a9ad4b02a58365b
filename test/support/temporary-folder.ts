// A fresh folder under the system's temporary directory, for a test's stores and files.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TemporaryFolder {
  readonly path: string;
  /** Removes the folder and everything in it. */
  remove(): Promise<void>;
}

export async function temporaryFolder(): Promise<TemporaryFolder> {
  const path = await mkdtemp(join(tmpdir(), "bot-test-"));
  // A store whose close outlived a start's failure may still drop a file in while rm empties the
  // folder (ENOTEMPTY on a loaded machine): rm tries again rather than failing the test's cleanup.
  return { path, remove: () => rm(path, { recursive: true, force: true, maxRetries: 3 }) };
}
