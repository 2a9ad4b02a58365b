// The pure parts of the MCP tools: names the model sees, results as observations, and how the
// server's annotations and approval setting combine with TOOL_POLICY.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createToolPolicy, strictest } from "../../../src/agent/tools/tool-policy.js";
import type { Tool } from "../../../src/contracts/types.js";
import { effectOf, serverApproval } from "../../../src/tools/mcp/mcp-tool.js";
import { prefixedToolName, toolFilter } from "../../../src/tools/mcp/tool-names.js";
import { toolResultText } from "../../../src/tools/mcp/tool-result.js";

describe("tool names", () => {
  it("prefixes the server, replaces unsafe characters and cuts to 64", () => {
    expect(prefixedToolName("fs", "read_text_file", new Set())).toBe("fs__read_text_file");
    expect(prefixedToolName("my server", "get.env/x", new Set())).toBe("my_server__get_env_x");
    expect(prefixedToolName("s", "x".repeat(100), new Set())).toHaveLength(64);
  });

  it("keeps names unique with a suffix, also at 64 characters", () => {
    const long = "y".repeat(100);
    const first = prefixedToolName("s", long, new Set());
    const second = prefixedToolName("s", long, new Set([first]));
    expect(second).toHaveLength(64);
    expect(second.endsWith("_2")).toBe(true);
    expect(prefixedToolName("a", "b", new Set(["a__b", "a__b_2"]))).toBe("a__b_3");
  });

  it("always gives a safe, unique name of at most 64 characters", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string(), fc.string()), { maxLength: 20 }), (pairs) => {
        const taken = new Set<string>();
        for (const [server, tool] of pairs) {
          const name = prefixedToolName(server, tool, taken);
          expect(name).toMatch(/^[A-Za-z0-9_-]{2,64}$/);
          expect(taken.has(name)).toBe(false);
          taken.add(name);
        }
      }),
    );
  });

  it("filters a server's tools by its allow and deny globs, deny first", () => {
    const wanted = toolFilter(["read_*", "list_*"], ["read_media*"]);
    expect(["read_file", "read_media_file", "list_directory", "write_file"].filter(wanted)).toEqual(["read_file", "list_directory"]);
  });
});

describe("tool results", () => {
  it("text as text, media as a one-line note, links as their URI and name", () => {
    const result = toolResultText({
      content: [
        { type: "text", text: "hello" },
        { type: "image", data: "A".repeat(4000), mimeType: "image/png" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///a.txt", name: "a.txt" },
        { type: "resource", resource: { uri: "test://r/1", mimeType: "text/plain", text: "inline resource" } },
        { type: "resource", resource: { uri: "test://r/2", mimeType: "application/octet-stream", blob: "AAAA" } },
      ],
    });
    expect(result).toEqual({
      ok: true,
      text: "hello\n[image: image/png, 2.9 KB]\n[audio: audio/wav, 3 bytes]\n[resource link: file:///a.txt (a.txt)]\ninline resource\n[resource: test://r/2, application/octet-stream, 3 bytes]",
    });
  });

  it("structured content as compact JSON when the server sent no text for it", () => {
    expect(toolResultText({ content: [], structuredContent: { t: 1 } })).toEqual({ ok: true, text: '{"t":1}' });
    expect(toolResultText({ content: [{ type: "text", text: "t is 1" }], structuredContent: { t: 1 } })).toEqual({
      ok: true,
      text: "t is 1",
    });
  });

  it("isError is a failed call; no content is (no output)", () => {
    expect(toolResultText({ content: [{ type: "text", text: "boom" }], isError: true })).toEqual({ ok: false, text: "boom" });
    expect(toolResultText({ content: [] })).toEqual({ ok: true, text: "(no output)" });
  });
});

const tool = (name: string, effect: "read" | "write", approval?: Tool["approval"]): Tool => ({
  name,
  description: "",
  schema: z.object({}),
  effect,
  approval,
  execute: async () => "",
});

describe("effect and approval layers", () => {
  const definition = (annotations?: Record<string, boolean>) => ({ name: "t", inputSchema: { type: "object" as const }, annotations });

  it("only readOnlyHint: true is a read", () => {
    expect(effectOf(definition({ readOnlyHint: true }))).toBe("read");
    expect(effectOf(definition({ readOnlyHint: false }))).toBe("write");
    expect(effectOf(definition({ destructiveHint: false }))).toBe("write");
    expect(effectOf(definition())).toBe("write");
  });

  it("takes the operator's word (a server's `reads`) for a tool without hints, never against the server's", () => {
    expect(effectOf(definition(), true)).toBe("read");
    expect(effectOf(definition({ readOnlyHint: false }), true)).toBe("write");
    expect(effectOf(definition({ destructiveHint: true }), true)).toBe("write");
    expect(effectOf(definition(), false)).toBe("write");
  });

  it("a server's approval setting is its own layer", () => {
    expect(serverApproval("writes", "read")).toBe("runs without asking");
    expect(serverApproval("writes", "write")).toBe("asks");
    expect(serverApproval("always", "read")).toBe("asks");
    expect(serverApproval("never", "write")).toBe("runs without asking");
  });

  it("layers combine strictly: deny anywhere wins, then an ask anywhere", () => {
    expect(strictest(["runs without asking", "denied", "asks"])).toBe("denied");
    expect(strictest(["runs without asking", undefined, "asks"])).toBe("asks");
    expect(strictest([undefined, "runs without asking"])).toBe("runs without asking");
    expect(strictest([undefined, undefined])).toBeUndefined();
    const policy = createToolPolicy([
      { pattern: "jira__delete_*", policy: "deny" },
      { pattern: "jira__*", policy: "allow" },
      { pattern: "fs__read_*", policy: "approve" },
    ]);
    expect(policy(tool("jira__delete_issue", "write", "runs without asking"))).toBe("denied");
    expect(policy(tool("jira__create_issue", "write", "asks"))).toBe("asks");
    expect(policy(tool("jira__search", "read", "runs without asking"))).toBe("read");
    expect(policy(tool("fs__read_file", "read", "runs without asking"))).toBe("asks");
    expect(policy(tool("fs__write_file", "write", "runs without asking"))).toBe("runs without asking");
    expect(policy(tool("post_message", "write"))).toBe("asks");
  });
});
