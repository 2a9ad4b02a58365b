// `/tools` on every surface: each configured MCP server with its state and, when it is not up,
// why (first: a surface that cuts a long list keeps it); then each tool with what a call may do
// here after policy (read, asks, runs without asking, denied), where it comes from and whether its
// MCP server is up. Plain text; each surface wraps it as it shows text.
import type { EffectAfterPolicy } from "../../agent/tools/tool-policy.js";
import type { ToolList, ToolListing, ToolServerListing } from "../../tools/tool-list.js";

/** What each effect means, told once under the list for the effects it shows. */
const MEANING: Readonly<Record<Exclude<EffectAfterPolicy, "read">, string>> = {
  asks: "asks: it waits for a person's Approve before it runs.",
  "runs without asking": "runs without asking: a write the bot's policy lets through.",
  denied: "denied: not offered here (TOOL_POLICY or this channel's settings).",
};

function toolLine(tool: ToolListing): string {
  // A read that runs is simply `read`; every other effect says what the tool is underneath.
  const effect = tool.afterPolicy === "read" ? "read" : `${tool.afterPolicy} (a ${tool.effect})`;
  if (!tool.server) return `- ${tool.name}: ${effect}, built in`;
  const state = tool.up ? "up" : "down: not offered until it is back";
  return `- ${tool.name}: ${effect}, MCP server ${tool.server} (${state})`;
}

function serverLine(server: ToolServerListing): string {
  const { state } = server;
  const tools = `${server.tools} tool${server.tools === 1 ? "" : "s"}`;
  switch (state.kind) {
    case "up":
      return `- ${server.name}: up (${state.via}), ${tools}`;
    case "down":
      return `- ${server.name}: down (${state.reason}); retrying`;
    case "failed":
      return `- ${server.name}: failed to start (${state.reason}); retrying`;
    case "starting":
      return `- ${server.name}: starting`;
  }
}

export function toolListText(list: ToolList): string {
  const { tools, servers } = list;
  const meanings = (Object.keys(MEANING) as Array<keyof typeof MEANING>)
    .filter((effect) => tools.some((tool) => tool.afterPolicy === effect))
    .map((effect) => MEANING[effect]);
  const shown =
    tools.length === 0 ? "No tools are available." : [`Tools (${tools.length}):`, ...tools.map(toolLine), ...meanings].join("\n");
  if (servers.length === 0) return shown;
  return [`MCP servers (${servers.length}):`, ...servers.map(serverLine), "", shown].join("\n");
}
