// What one test file's tests open, and when it is closed: a folder for the file (stores made in
// it), and whatever a test started closed after that test, the last started first.
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { temporaryFolder, type TemporaryFolder } from "./temporary-folder.js";

interface Closable {
  close(): Promise<void>;
}

export interface PerTest {
  /** The file's folder; exists while its tests run. */
  folder(): string;
  /** An SQLite store in the file's folder that no other test of the file uses. */
  sqliteUrl(): string;
  /** Closes `opened` after the current test; returns it. */
  closeAfter<T extends Closable>(opened: T): T;
  /** Closes `opened` now rather than after the test (to start another on its store, as after a restart). */
  closeNow(opened: Closable): Promise<void>;
  /** Leaves `opened` to the test, which closes it itself (in steps of its own). */
  release(opened: Closable): void;
}

/** Call at the top of a test file: registers the hooks that make the folder and close what the tests opened. */
export function usePerTest(): PerTest {
  let folder: TemporaryFolder | undefined;
  let stores = 0;
  const opened: Closable[] = [];
  beforeAll(async () => {
    folder = await temporaryFolder();
  });
  afterEach(async () => {
    for (const item of opened.splice(0).reverse()) await item.close();
  });
  afterAll(async () => {
    await folder?.remove();
  });
  const release = (item: Closable): void => {
    const at = opened.indexOf(item);
    if (at >= 0) opened.splice(at, 1);
  };
  const path = (): string => {
    if (!folder) throw new Error("the test file's folder exists only while its tests run");
    return folder.path;
  };
  return {
    folder: path,
    sqliteUrl: () => `sqlite://${join(path(), `store-${++stores}.sqlite`)}`,
    closeAfter(item) {
      opened.push(item);
      return item;
    },
    async closeNow(item) {
      release(item);
      await item.close();
    },
    release,
  };
}
