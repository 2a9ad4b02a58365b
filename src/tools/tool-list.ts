// What `/tools` and the explorer's Tools page show: every tool a run may be offered, with what it
// may do once every layer of policy has spoken, and every configured MCP server with its state.
import type { EffectAfterPolicy } from "../agent/tools/tool-policy.js";
import type { Tool } from "../contracts/types.js";

/** A tool as its source knows it, before the bot's policy: the MCP manager's catalogue. */
export interface CatalogTool {
  readonly name: string;
  /** The MCP server it comes from; undefined for the bot's own tools. */
  readonly server?: string;
  readonly effect: "read" | "write";
  /** The provider's own layer of the policy (an MCP server's `approval`). */
  readonly approval?: Tool["approval"];
  /** False while its MCP server is down (its tools are not offered then). */
  readonly up: boolean;
}

/** One line of `/tools`. */
export interface ToolListing extends CatalogTool {
  /** What a call may do here: TOOL_POLICY, the provider and, for a channel, the settings file's lists. */
  readonly afterPolicy: EffectAfterPolicy;
}

/** One configured MCP server in `/tools`, also one that failed to start or never connected, with why. */
export interface ToolServerListing {
  readonly name: string;
  readonly state:
    | { readonly kind: "starting" }
    | { readonly kind: "up"; readonly via: string }
    | { readonly kind: "down" | "failed"; readonly reason: string };
  /** Tools known of it: the current ones while up, the last known ones otherwise. */
  readonly tools: number;
}

/** What the MCP manager describes: its tools and its servers. */
export interface ToolCatalog {
  readonly tools: readonly CatalogTool[];
  readonly servers: readonly ToolServerListing[];
}

/** What `/tools` shows: the names are the ones the model is offered. */
export interface ToolList {
  readonly tools: readonly ToolListing[];
  readonly servers: readonly ToolServerListing[];
}
