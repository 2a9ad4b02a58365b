// Where the repository's files are, for tests that read a fixture or a page, or start a script, by
// its path: from the repository's root, so a test's own folder says nothing about where they are.
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root folder. */
export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** A file or folder under test/fixtures/. */
export const fixturePath = (...parts: string[]): string => join(repoRoot, "test", "fixtures", ...parts);

/** A file under test/support/: the entry script of a child process, or a module it preloads. */
export const supportPath = (name: string): string => join(repoRoot, "test", "support", name);
