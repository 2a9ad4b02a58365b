// `/tools` on every surface: each configured MCP server with its state and, when it is not up,
// why (first: a surface that cuts a long list keeps it); then each tool with where it comes from,
// read or write, and whether its MCP server is up. Plain text; each surface wraps it as it shows text.
import type { ToolList, ToolListing, ToolServerListing } from "../../runs/service.js";

function toolLine(tool: ToolListing): string {
  if (!tool.server) return `- ${tool.name}: ${tool.effect}, built in`;
  const state = tool.up ? "up" : "down: not offered until it is back";
  return `- ${tool.name}: ${tool.effect}, MCP server ${tool.server} (${state})`;
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
  const writes = tools.some((tool) => tool.effect === "write")
    ? "\nA write asks for approval before it runs (unless the bot's policy says otherwise)."
    : "";
  const shown = tools.length === 0 ? "No tools are available." : [`Tools (${tools.length}):`, ...tools.map(toolLine)].join("\n") + writes;
  if (servers.length === 0) return shown;
  return [`MCP servers (${servers.length}):`, ...servers.map(serverLine), "", shown].join("\n");
}
