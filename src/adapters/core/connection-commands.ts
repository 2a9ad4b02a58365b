// `connections`: the MCP servers that act as the person asking (OAuth), which of them they
// connected and when; `disconnect <server>` ends one (revoked at the server when it offers
// revocation). Only the asker sees the answer: it is about their own accounts.
import type { ConnectionListing } from "../../runs/api/agent-service.js";
import type { Command } from "./command.js";

const NONE = "No MCP server here acts as you: there is nothing to connect.";

function when(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export function connectionsText(listed: readonly ConnectionListing[]): string {
  if (listed.length === 0) return NONE;
  const lines = listed.map((entry) =>
    entry.connectedAt === undefined
      ? `- ${entry.server}: not connected (you get a Connect link when a request needs it)`
      : `- ${entry.server}: connected since ${when(entry.connectedAt)}`,
  );
  return ["Your connections:", ...lines, "End one with: disconnect <server>"].join("\n");
}

const SERVER_OPTION = "server";

export const CONNECTION_COMMANDS: readonly Command[] = [
  {
    name: "connections",
    summary: "Your connections to MCP servers that act as you, and when you made them",
    private: true,
    answer: async ({ ctx, at }) => (ctx.service.connections ? connectionsText(await ctx.service.connections.list(at.origin)) : NONE),
  },
  {
    name: "disconnect",
    summary: "End your connection to an MCP server that acts as you: disconnect <server>",
    private: true,
    takesText: true,
    options: [{ name: SERVER_OPTION, description: "the MCP server's name, as connections lists it", maxLength: 100 }],
    async answer({ ctx, at, text, options }) {
      const people = ctx.service.connections;
      if (!people) return NONE;
      const server = (options[SERVER_OPTION] ?? text).trim();
      if (server === "" || /\s/.test(server)) return "Usage: disconnect <server>, one of the servers connections lists";
      const result = await people.disconnect(at.origin, server);
      if (result === "unknown") return `There is no MCP server named ${server} that acts as you.`;
      if (result === "not_connected") return `You had not connected ${server}; nothing changed.`;
      return `Disconnected ${server}: the bot no longer holds your sign-in there.`;
    },
  },
];
