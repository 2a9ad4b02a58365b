// A tool's effect after policy (read, asks, runs without asking, denied), for every combination
// of its effect, its MCP server's `approval`, TOOL_POLICY and the channel's lists; the table in
// docs/tool-policy.md is the expectation, so the page can't say something the code doesn't do.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createToolPolicy,
  effectAfterPolicy,
  effectUnder,
  sayOfWord,
  wordOf,
  type EffectAfterPolicy,
} from "../../../src/agent/tools/tool-policy.js";
import type { Tool, ToolEffect } from "../../../src/contracts/types.js";
import { loadConfig } from "../../../src/config.js";
import type { ApprovalMode } from "../../../src/tools/mcp/mcp-config.js";
import { serverApproval } from "../../../src/tools/mcp/mcp-tool.js";

const tool = (effect: ToolEffect, server: ApprovalMode | undefined): Tool => ({
  name: server ? "jira__thing" : "thing",
  description: "",
  schema: z.object({}),
  effect,
  ...(server ? { approval: serverApproval(server, effect) } : {}),
  execute: async () => "",
});

interface Row {
  readonly effect: ToolEffect;
  readonly server: ApprovalMode | undefined;
  readonly policy: "approve" | "allow" | "deny" | undefined;
  readonly expected: EffectAfterPolicy;
}

const bare = (cell: string) => cell.replaceAll("`", "").trim();

/** The rows of the page's "Every combination" table. */
function documentedRows(): Row[] {
  const page = readFileSync("docs/tool-policy.md", "utf8");
  const table = page.slice(page.indexOf("## Every combination"));
  return table
    .split("\n")
    .filter((line) => /^\| (read|write) /.test(line))
    .map((line) => {
      const [effect, server, policy, expected] = line.split("|").slice(1, 5).map(bare);
      return {
        effect: effect as ToolEffect,
        server: server === "built in" ? undefined : (server as ApprovalMode),
        policy: policy === "—" ? undefined : (policy as Row["policy"]),
        expected: expected as EffectAfterPolicy,
      };
    });
}

describe("a tool's effect after policy", () => {
  const rows = documentedRows();

  it("the page's table has every combination once", () => {
    const keys = rows.map((row) => `${row.effect}/${row.server ?? "built in"}/${row.policy ?? "none"}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toHaveLength(2 * 4 * 4);
  });

  it.each(rows)("$effect tool, server approval $server, TOOL_POLICY $policy: $expected", ({ effect, server, policy, expected }) => {
    const subject = tool(effect, server);
    const rules = policy ? loadConfig({ TOOL_POLICY: `*thing=${policy}` }).toolPolicy : [];
    expect(effectAfterPolicy(subject, createToolPolicy(rules))).toBe(expected);
  });

  it.each(rows)("left out by the channel's lists, $effect/$server/$policy is denied", ({ effect, server, policy }) => {
    const rules = policy ? loadConfig({ TOOL_POLICY: `*thing=${policy}` }).toolPolicy : [];
    expect(effectAfterPolicy(tool(effect, server), createToolPolicy(rules), () => false)).toBe("denied");
  });

  it("offers by the channel's lists by name", () => {
    const policy = createToolPolicy([]);
    const offered = (name: string) => name !== "thing";
    expect(effectAfterPolicy(tool("read", undefined), policy, offered)).toBe("denied");
    expect(effectAfterPolicy(tool("read", "writes"), policy, offered)).toBe("read");
  });

  it("TOOL_POLICY's first matching rule is its say, also when a later rule is stricter", () => {
    const rules = loadConfig({ TOOL_POLICY: "thing=allow,*=deny" }).toolPolicy;
    expect(createToolPolicy(rules)(tool("write", undefined))).toBe("runs without asking");
  });

  it("maps TOOL_POLICY's words (and run records') to the four and back", () => {
    expect((["approve", "allow", "deny"] as const).map(sayOfWord)).toEqual(["asks", "runs without asking", "denied"]);
    expect((["read", "asks", "runs without asking", "denied"] as const).map(wordOf)).toEqual(["allow", "approve", "allow", "deny"]);
    expect(effectUnder({ effect: "read" }, sayOfWord("allow"))).toBe("read");
    expect(effectUnder({ effect: "write" }, sayOfWord("allow"))).toBe("runs without asking");
  });
});
