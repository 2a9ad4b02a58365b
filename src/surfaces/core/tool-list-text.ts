// `/tools` on every surface: each tool with where it comes from, read or write, and whether its
// MCP server is up. Plain text; each surface wraps it as it shows text.
import type { ToolListing } from "../../runs/service.js";

function line(tool: ToolListing): string {
  if (!tool.server) return `- ${tool.name}: ${tool.effect}, built in`;
  const state = tool.up ? "up" : "down: not offered until it is back";
  return `- ${tool.name}: ${tool.effect}, MCP server ${tool.server} (${state})`;
}

export function toolListText(tools: readonly ToolListing[]): string {
  if (tools.length === 0) return "No tools are available.";
  const writes = tools.some((tool) => tool.effect === "write")
    ? "\nA write asks for approval before it runs (unless the bot's policy says otherwise)."
    : "";
  return [`Tools (${tools.length}):`, ...tools.map(line)].join("\n") + writes;
}
