// `/tools`' list of a surface, or of one conversation on it: each tool with what a call may do
// after every layer of policy (TOOL_POLICY, the provider, the channel's settings-file lists), so
// an operator sees the run's view, not the tools' own read/write alone.
import type { TaskOrigin, Tool } from "../../contracts/types.js";
import { effectAfterPolicy, type ToolPolicy } from "../../agent/tools/tool-policy.js";
import type { RunSettings } from "../../governance/channel-settings.js";
import type { CatalogTool, ToolCatalog, ToolList } from "../../tools/tool-list.js";

export interface ToolListingInput {
  /** The bot's own tools on the surface (built in, the process's, the files', the surface's). */
  readonly own: readonly Tool[];
  /** The MCP servers' tools, also the last known ones of a server that is down. */
  readonly catalog?: ToolCatalog;
  readonly policy: ToolPolicy;
  /** The conversation asked from, with its channel's settings; none: the surface as a whole. */
  readonly at?: { readonly origin: TaskOrigin; readonly settings: RunSettings };
}

/** Pure. A tool the conversation is not offered (the settings file's lists, a tool for other places) is `denied`. */
export function toolListing(input: ToolListingInput): ToolList {
  const { at, policy } = input;
  const offered = (tool: Pick<Tool, "name" | "availableTo">) =>
    !at || (at.settings.toolAllowed(tool.name) && (tool.availableTo?.(at.origin) ?? true));
  const own: CatalogTool[] = input.own.map((tool) => ({
    name: tool.name,
    effect: tool.effect,
    ...(tool.approval ? { approval: tool.approval } : {}),
    up: true,
  }));
  const withOwn = new Map(input.own.map((tool) => [tool.name, tool]));
  const listed = [...own, ...(input.catalog?.tools ?? [])].map((tool) => ({
    ...tool,
    afterPolicy: effectAfterPolicy(tool, policy, () => offered(withOwn.get(tool.name) ?? tool)),
  }));
  return { tools: listed, servers: input.catalog?.servers ?? [] };
}
