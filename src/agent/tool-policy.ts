// Which calls need a person: `approve` (the default for write tools), `allow` (the default for
// reads) or `deny`. Two layers can speak: TOOL_POLICY rules per tool name or glob
// ("post_message=approve,delete_*=deny", also over MCP tools' prefixed names) and the tool's
// provider (an MCP server's `approval` setting). They combine strictly: a deny anywhere wins,
// then an approve anywhere; only with no layer speaking does the tool's effect decide.
import type { ToolPolicyRule } from "../config.js";
import type { ToolPolicy } from "./call-batch.js";
import type { Tool } from "./types.js";

type Verdict = ReturnType<ToolPolicy>;

export function globToRegExp(pattern: string): RegExp {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${escaped}$`);
}

/** deny > approve > allow; undefined when no layer has a say. */
export function strictest(verdicts: readonly (Verdict | undefined)[]): Verdict | undefined {
  if (verdicts.includes("deny")) return "deny";
  if (verdicts.includes("approve")) return "approve";
  return verdicts.includes("allow") ? "allow" : undefined;
}

/** Within TOOL_POLICY the first matching rule wins, so specific names go before broad globs. */
export function createToolPolicy(rules: readonly ToolPolicyRule[]): ToolPolicy {
  const compiled = rules.map((rule) => ({ test: globToRegExp(rule.pattern), policy: rule.policy }));
  return (tool: Tool) => {
    const configured = compiled.find((rule) => rule.test.test(tool.name))?.policy;
    return strictest([configured, tool.approval]) ?? (tool.effect === "write" ? "approve" : "allow");
  };
}
