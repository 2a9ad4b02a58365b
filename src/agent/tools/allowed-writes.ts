// An `allow` policy on a write tool takes the person out of the loop for it. That can be a
// deliberate choice, but never a silent one: it is named in the log when the tool is offered.
import type { Logger } from "pino";
import type { ToolPolicyRule } from "../../config.js";
import { createToolPolicy } from "./tool-policy.js";
import type { Tool } from "../types.js";

/** The write tools among `tools` that the policy lets run without a person's approval. */
export function writesRunWithoutApproval(tools: readonly Tool[], rules: readonly ToolPolicyRule[]): string[] {
  const policy = createToolPolicy(rules);
  return tools.filter((tool) => tool.effect === "write" && policy(tool) === "runs without asking").map((tool) => tool.name);
}

/** Logs one warning per such tool. */
export function warnAboutAllowedWrites(tools: readonly Tool[], rules: readonly ToolPolicyRule[], logger: Logger): void {
  for (const tool of writesRunWithoutApproval(tools, rules)) {
    logger.warn({ tool }, `the tool policy (TOOL_POLICY) lets the write tool ${tool} run without a person's approval`);
  }
}
