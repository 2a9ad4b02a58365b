// The docs' example of a bad MCP servers file shows the line the real loader prints for it.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { silentLogger } from "../../src/logger.js";
import { prepareMcp } from "../../src/tools/mcp/mcp-startup.js";
import { temporaryFolder } from "../support/temporary-folder.js";

/** "an `mcp.json` of `{…}` stops the start with `…`", wherever the docs say it. */
const EXAMPLE = /an `mcp\.json` of\s+`(\{[^`]+\})`\s+stops the start with `([^`]+)`/;

describe("the bad mcp.json example in the docs", () => {
  it("is what the loader prints for that file", async () => {
    const example = EXAMPLE.exec(await readFile("docs/mcp.md", "utf8"));
    expect(example, "docs/mcp.md shows a bad mcp.json and the line it prints").not.toBeNull();
    const [, file, shown] = example!;
    const folder = await temporaryFolder();
    try {
      await writeFile(join(folder.path, "mcp.json"), file!);
      expect(await prepareMcp(loadConfig({}), {}, silentLogger, folder.path)).toEqual({ kind: "failed", message: shown });
    } finally {
      await folder.remove();
    }
  });
});
