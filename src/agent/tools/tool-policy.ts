// What a tool call may do once every layer of policy has spoken, in one vocabulary: `read` (it
// runs; it changes nothing), `asks` (it waits for a person's Approve), `runs without asking` (a
// write the policy lets through) or `denied` (refused, or not offered at all). The layers, as
// docs/tool-policy.md tells them: the settings file's tool lists for the channel (a tool they
// leave out is not offered), TOOL_POLICY rules per tool name or glob (the first match wins;
// also over MCP tools' prefixed names) and the tool's provider (an MCP server's `approval`).
// They combine strictly: a deny anywhere wins, then an ask anywhere; only with no layer
// speaking does the tool's own effect decide (a write asks, a read is a read).
import type { ToolPolicyRule } from "../../config.js";
import type { Tool } from "../../contracts/types.js";

export type EffectAfterPolicy = "read" | "asks" | "runs without asking" | "denied";

/** What one layer says of a tool; undefined when it says nothing. */
export type PolicySay = Exclude<EffectAfterPolicy, "read">;

/** What the policy reads of a tool: its name, its own effect and its provider's say. */
export type PolicedTool = Pick<Tool, "name" | "effect" | "approval">;

/** The loop's question for each call: decided once per call, from the tool alone. */
export type ToolPolicy = (tool: PolicedTool) => EffectAfterPolicy;

/** TOOL_POLICY's words, which run records keep too. */
export type PolicyWord = ToolPolicyRule["policy"];

const SAY_OF_WORD: Readonly<Record<PolicyWord, PolicySay>> = { deny: "denied", approve: "asks", allow: "runs without asking" };

export function sayOfWord(word: PolicyWord): PolicySay {
  return SAY_OF_WORD[word];
}

/** Back to TOOL_POLICY's words (a read and a write let through are both `allow`). */
export function wordOf(effect: EffectAfterPolicy): PolicyWord {
  if (effect === "denied") return "deny";
  return effect === "asks" ? "approve" : "allow";
}

const STRICTEST_FIRST: readonly PolicySay[] = ["denied", "asks", "runs without asking"];

/** denied > asks > runs without asking; undefined when no layer has a say. */
export function strictest(says: readonly (PolicySay | undefined)[]): PolicySay | undefined {
  return STRICTEST_FIRST.find((say) => says.includes(say));
}

/** With no say a write asks; a read that runs without asking is simply a read. */
export function effectUnder(tool: Pick<Tool, "effect">, say: PolicySay | undefined): EffectAfterPolicy {
  const decided = say ?? (tool.effect === "write" ? "asks" : "runs without asking");
  return decided === "runs without asking" && tool.effect === "read" ? "read" : decided;
}

export function globToRegExp(pattern: string): RegExp {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${escaped}$`);
}

/** TOOL_POLICY and the tool's provider; within TOOL_POLICY the first matching rule wins, so specific names go before broad globs. */
export function createToolPolicy(rules: readonly ToolPolicyRule[]): ToolPolicy {
  const compiled = rules.map((rule) => ({ test: globToRegExp(rule.pattern), say: sayOfWord(rule.policy) }));
  return (tool) => effectUnder(tool, strictest([compiled.find((rule) => rule.test.test(tool.name))?.say, tool.approval]));
}

/**
 * A tool's effect where it would run, every layer included: what `/tools` shows. `offered` is
 * the channel's settings-file lists (RunSettings.toolAllowed); without them every tool is offered.
 */
export function effectAfterPolicy(
  tool: PolicedTool,
  policy: ToolPolicy,
  offered: (name: string) => boolean = () => true,
): EffectAfterPolicy {
  return offered(tool.name) ? policy(tool) : "denied";
}
