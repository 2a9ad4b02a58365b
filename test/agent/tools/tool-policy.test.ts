import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createToolPolicy } from "../../../src/agent/tools/tool-policy.js";
import type { Tool } from "../../../src/contracts/types.js";

const tool = (name: string, effect: "read" | "write"): Tool => ({
  name,
  description: "",
  schema: z.object({}),
  effect,
  execute: async () => "",
});

describe("tool policy", () => {
  it("asks for approval on writes and allows reads by default", () => {
    const policy = createToolPolicy([]);
    expect(policy(tool("post_message", "write"))).toBe("asks");
    expect(policy(tool("read_channel", "read"))).toBe("read");
  });

  it("matches names and globs, first rule first", () => {
    const policy = createToolPolicy([
      { pattern: "delete_all", policy: "approve" },
      { pattern: "delete_*", policy: "deny" },
      { pattern: "post_?essage", policy: "allow" },
      { pattern: "read_*", policy: "approve" },
    ]);
    expect(policy(tool("delete_all", "write"))).toBe("asks");
    expect(policy(tool("delete_user", "write"))).toBe("denied");
    expect(policy(tool("post_message", "write"))).toBe("runs without asking");
    expect(policy(tool("read_thread", "read"))).toBe("asks");
    expect(policy(tool("delete.x", "write"))).toBe("asks");
  });
});
