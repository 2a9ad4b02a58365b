// How a tool that is not built in is described to the person asked to approve it: the server,
// the tool's own name there, and the hints the server gave about it.
import type { Tool } from "../../contracts/types.js";

/** `{ source }` for a PendingApproval, or nothing for a built-in tool. */
export function sourceOf(tool: Tool | undefined): { readonly source?: string } {
  const provider = tool?.provider;
  if (!provider) return {};
  const hints = Object.entries(provider.annotations ?? {})
    .filter(([name, value]) => name.endsWith("Hint") && typeof value === "boolean")
    .map(([name, value]) => `${name}: ${String(value)}`);
  return { source: `MCP server ${provider.server}, tool ${provider.tool}${hints.length > 0 ? ` (${hints.join(", ")})` : ""}` };
}
