// Which calls need a person: `approve` (the default for write tools), `allow` (the default for
// reads) or `deny`, set per tool name or glob (TOOL_POLICY="post_message=approve,delete_*=deny").
import type { ToolPolicyRule } from "../config.js";
import type { ToolPolicy } from "./call-batch.js";

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${escaped}$`);
}

/** The first matching rule wins, so specific names go before broad globs. */
export function createToolPolicy(rules: readonly ToolPolicyRule[]): ToolPolicy {
  const compiled = rules.map((rule) => ({ test: globToRegExp(rule.pattern), policy: rule.policy }));
  return (tool) => compiled.find((rule) => rule.test.test(tool.name))?.policy ?? (tool.effect === "write" ? "approve" : "allow");
}
