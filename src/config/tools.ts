// Which tools there are and who must say yes: TOOL_POLICY, the MCP servers file and the
// settings file (how their rules combine: docs/tool-policy.md).
import { z } from "zod";
import { area } from "./area.js";
import { nonBlank, wholeNumber, type ValueType } from "./values.js";
import { variable } from "./variable.js";

/** TOOL_POLICY's own words; in the code a tool's effect after policy is one of src/agent/tools/tool-policy.ts's. */
const POLICY_WORDS = ["approve", "allow", "deny"] as const;

export interface ToolPolicyRule {
  readonly pattern: string;
  readonly policy: (typeof POLICY_WORDS)[number];
}

/** `name=approve|allow|deny` pairs separated by commas, in order (the first match wins). */
const toolPolicyRules = (): ValueType<z.ZodType<ToolPolicyRule[], string>> => ({
  schema: z.string().transform((value, context): ToolPolicyRule[] => {
    const rules: ToolPolicyRule[] = [];
    for (const part of value
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean)) {
      const [pattern, policy, ...rest] = part.split("=").map((piece) => piece.trim());
      const word = POLICY_WORDS.find((known) => known === policy);
      if (!pattern || rest.length > 0 || !word) {
        context.addIssue({ code: "custom", message: `expects name=approve|allow|deny pairs separated by commas ("${part}" is not one)` });
        return z.NEVER;
      }
      rules.push({ pattern, policy: word });
    }
    return rules;
  }),
  range: "`name=approve|allow|deny`, …",
});

export const toolsArea = area({
  title: "Tools and settings files",
  about: "How TOOL_POLICY, the MCP servers file and the settings file's tool lists combine: [tool policy](tool-policy.md).",
  variables: {
    toolPolicy: variable("TOOL_POLICY", toolPolicyRules(), {
      default: "",
      meaning:
        "per tool name or glob: `approve`, `allow` or `deny`, e.g. `post_message=approve,delete_*=deny` (first match wins). An `allow` that reaches a write tool is logged as a warning naming the tool, and so is a rule that matches no tool",
    }),
    /** Unset means ./mcp.json when it exists (src/tools/mcp/mcp-config.ts). */
    mcpConfig: variable("MCP_CONFIG", nonBlank("expects the path of the MCP servers file (JSON)"), {
      shownDefault: "`mcp.json` when present",
      meaning: "the MCP servers file; see [MCP tool servers](mcp.md)",
    }),
    mcpElicitationTimeoutMs: variable("MCP_ELICITATION_TIMEOUT_MS", wholeNumber(1_000, 86_400_000), {
      default: 600_000,
      meaning:
        "a form an MCP server asks the person to fill in is cancelled after this when nobody answered (10 minutes); see [Forms from servers](mcp.md#forms-from-servers)",
    }),
    /** The settings file (access, limits, channels); unset: bot.settings.json when present. */
    settingsFile: variable("BOT_SETTINGS", nonBlank("expects the path of a JSON or YAML settings file"), {
      shownDefault: "`bot.settings.json` when present",
      meaning:
        "the settings file (JSON or YAML): who may use the bot where, limits, per-channel settings; see [Governing it](governance.md#governing-it)",
    }),
  },
});
