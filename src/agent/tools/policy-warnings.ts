// What the tool policy does that an operator must know, never silently: an `allow` on a write
// tool takes the person out of the loop for it (it can be deliberate), and a TOOL_POLICY rule
// that matches no tool is most likely a typo that leaves the tool it meant unruled. Both are
// logged as notices (`notice: true`), which the console shows the person at it.
import type { Logger } from "../../logger.js";
import type { ToolPolicyRule } from "../../config.js";
import { createToolPolicy, globToRegExp } from "./tool-policy.js";
import type { Tool } from "../../contracts/types.js";

/** The write tools among `tools` that the policy lets run without a person's approval. */
export function writesRunWithoutApproval(tools: readonly Tool[], rules: readonly ToolPolicyRule[]): string[] {
  const policy = createToolPolicy(rules);
  return tools.filter((tool) => tool.effect === "write" && policy(tool) === "runs without asking").map((tool) => tool.name);
}

/** The rules whose pattern matches none of `names`. */
export function unmatchedRules(names: readonly string[], rules: readonly ToolPolicyRule[]): ToolPolicyRule[] {
  return rules.filter((rule) => !names.some((name) => globToRegExp(rule.pattern).test(name)));
}

/** Logs one warning per such tool. */
export function warnAboutAllowedWrites(tools: readonly Tool[], rules: readonly ToolPolicyRule[], logger: Logger): void {
  for (const tool of writesRunWithoutApproval(tools, rules)) {
    logger.warn({ tool, notice: true }, `the tool policy (TOOL_POLICY) lets the write tool ${tool} run without a person's approval`);
  }
}

/** Logs one warning per rule that matches no tool in `names` (every tool the surfaces offer). */
export function warnAboutUnmatchedRules(names: readonly string[], rules: readonly ToolPolicyRule[], logger: Logger): void {
  for (const rule of unmatchedRules(names, rules)) {
    logger.warn(
      { pattern: rule.pattern, notice: true },
      `the tool policy (TOOL_POLICY) rule ${rule.pattern}=${rule.policy} matches no tool; /tools lists the tools' names`,
    );
  }
}
