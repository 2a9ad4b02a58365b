// Where a tool's result came from, as its observation's data block names it: the tool, its MCP
// server, and for a read of a channel, the channel.
import { asData, defaceMarkers } from "../context/data-blocks.js";
import type { TextSource } from "../../contracts/provenance.js";
import type { Tool } from "../../contracts/types.js";
import { SOURCE_NAME_MAX } from "../../memory/run-records/source-schema.js";

/**
 * The channel a read names in its arguments; a tool whose `readsFrom` throws names none rather than failing the call.
 * Cut to what a stored source keeps: the arguments are the model's, and a run whose source could not be stored back
 * could not be resumed.
 */
function channelRead(tool: Tool, args: unknown): string | undefined {
  try {
    return tool.readsFrom?.(args)?.slice(0, SOURCE_NAME_MAX);
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

/** The observation as the model reads it: data from `source` under `boundary`, but for a headed result's own first line (Tool.headedResult). */
export function resultAsData(observation: string, source: TextSource, tool: Tool, boundary: string): string {
  const headerEnd = tool.headedResult ? observation.indexOf("\n") : -1;
  if (headerEnd < 0) return asData(observation, source, boundary);
  return `${defaceMarkers(observation.slice(0, headerEnd))}\n${asData(observation.slice(headerEnd + 1), source, boundary)}`;
}
