// What `/tools` and the explorer's Tools page show: every tool a run may be offered, and every
// configured MCP server with its state.

/** One line of `/tools`. */
export interface ToolListing {
  readonly name: string;
  /** The MCP server it comes from; undefined for the bot's own tools. */
  readonly server?: string;
  readonly effect: "read" | "write";
  /** False while its MCP server is down (its tools are not offered then). */
  readonly up: boolean;
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

/** What `/tools` shows: the names are the ones the model is offered. */
export interface ToolList {
  readonly tools: readonly ToolListing[];
  readonly servers: readonly ToolServerListing[];
}
