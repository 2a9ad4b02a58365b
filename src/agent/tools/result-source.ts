// Where a tool's result came from, as its observation's data block names it: the tool, its MCP
// server, and for a read of a channel, the channel.
import type { TextSource } from "../../contracts/provenance.js";
import type { Tool } from "../../contracts/types.js";

/** The channel a read names in its arguments; a tool whose `readsFrom` throws names none rather than failing the call. */
function channelRead(tool: Tool, args: unknown): string | undefined {
  try {
    return tool.readsFrom?.(args);
  } catch {
    return undefined;
  }
}

export function resultSource(tool: Tool, args: unknown): Extract<TextSource, { kind: "tool" }> {
  const channel = channelRead(tool, args);
  return {
    kind: "tool",
    tool: tool.name,
    ...(tool.provider ? { server: tool.provider.server } : {}),
    ...(channel === undefined ? {} : { channel }),
  };
}
