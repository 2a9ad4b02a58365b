// People's connections to MCP servers behind OAuth, as the process wires them: the store of
// sealed tokens (its key derived from the approval key, kept outside the store), the Connect
// links and their callback under /oauth on the ops port (PUBLIC_URL), or in the console on
// 127.0.0.1:PORT, where the person's browser comes back on the same machine.
import type { RequestListener } from "node:http";
import type { Config } from "./config.js";
import type { PendingApproval } from "./contracts/types.js";
import type { Logger } from "./logger.js";
import type { KeyValueStore } from "./memory/types.js";
import type { ApprovalKey } from "./runs/approvals/approval-key.js";
import type { ServiceConnections } from "./runs/api/agent-service.js";
import { type ConnectionGrants, NO_RUN } from "./runs/approvals/connections.js";
import { type ConnectFlow, createConnectFlow } from "./tools/mcp/auth/connect-flow.js";
import { createConnectStates } from "./tools/mcp/auth/connect-state.js";
import { createConnectionStore } from "./tools/mcp/auth/connection-store.js";
import { OAUTH_PREFIX, oauthListener } from "./tools/mcp/auth/oauth-routes.js";
import type { ClientAddress } from "./tools/mcp/auth/person-auth-provider.js";
import { createPersonConnections, type PersonConnections } from "./tools/mcp/auth/person-connections.js";
import { createSealedBox } from "./tools/mcp/auth/sealed-box.js";
import type { McpManager } from "./tools/mcp/mcp-manager.js";
import { type OpsServer, startOpsServer } from "./ops/ops-server.js";
import type { ResourceStack } from "./resource-stack.js";
import { ownerOf } from "./tools/mcp/person-server.js";

export interface ProcessConnections {
  readonly connections: PersonConnections;
  readonly flow: ConnectFlow;
  /** Everything under /oauth. */
  readonly listener: RequestListener;
  /** The worker's Connect link for a paused run. */
  connectLink(pending: PendingApproval): Promise<string>;
  /** The runs that wait for connections: set once the service exists (the flow asks them at each callback). */
  bind(grants: ConnectionGrants): void;
  /** `/connections`: a person's servers, and disconnecting one. */
  readonly people: ServiceConnections;
}

/** The address the bot is reached at for OAuth: PUBLIC_URL, or in the console this machine's PORT. */
export function clientAddress(config: Config, consoleMode: boolean): ClientAddress | undefined {
  const base = config.publicUrl ?? (consoleMode ? `http://127.0.0.1:${config.port}` : undefined);
  if (!base) return undefined;
  const root = base.endsWith("/") ? base : `${base}/`;
  const redirectUrl = new URL("oauth/callback", root).toString();
  const served = new URL("oauth/client-metadata.json", root);
  // A client ID metadata document must be fetched over https: one served over http can't be the client ID.
  const clientMetadataUrl = config.clientMetadataUrl ?? (served.protocol === "https:" ? served.toString() : undefined);
  return { redirectUrl, ...(clientMetadataUrl ? { clientMetadataUrl } : {}) };
}

export type AddressCheck =
  | { readonly kind: "ready"; readonly address: ClientAddress }
  | { readonly kind: "none" }
  /** A `user` server, and nowhere a person's sign-in can come back to. */
  | { readonly kind: "failed"; readonly message: string };

/** Chat processes need PUBLIC_URL for a `user` server: the sign-in comes back there. */
export function connectionsAddress(config: Config, consoleMode: boolean, manager: McpManager | undefined): AddressCheck {
  if (!manager) return { kind: "none" };
  const address = clientAddress(config, consoleMode);
  if (address) return { kind: "ready", address };
  const personal = manager.servers().find((server) => manager.personServer(server.name));
  if (!personal) return { kind: "none" };
  return {
    kind: "failed",
    message: `PUBLIC_URL: expects the http(s) address the bot is reached at (it is not set): the MCP server "${personal.name}" signs in each person, whose sign-in comes back to PUBLIC_URL/oauth/callback`,
  };
}

/**
 * The connections of this process with their /oauth pages mounted: on the ops port, or in the
 * console on 127.0.0.1:PORT, opened at start for a `user` server and otherwise when the first
 * Connect link is made (so a console with no such server never takes the port).
 */
export function openConnections(deps: {
  readonly address: ClientAddress;
  readonly store: KeyValueStore;
  readonly key: ApprovalKey;
  readonly manager: McpManager;
  readonly logger: Logger;
  readonly consoleMode: boolean;
  readonly port: number;
  readonly stack: ResourceStack;
  readonly http?: Pick<OpsServer, "mountPrefix">;
  /** The console's explorer serves 127.0.0.1:PORT, and /oauth with it (see `listener`). */
  readonly explorerServes?: boolean;
}): ProcessConnections {
  const made = createProcessConnections(deps);
  if (deps.http) {
    deps.http.mountPrefix(OAUTH_PREFIX, made.listener);
    return made;
  }
  if (deps.explorerServes) return made;
  let listening: Promise<unknown> | undefined;
  const listen = () => {
    listening ??= startOpsServer(deps.port, [], { host: "127.0.0.1", logger: deps.logger }).then(
      (server) => {
        server.mountPrefix(OAUTH_PREFIX, made.listener);
        deps.stack.defer("clients", "the console's OAuth callback port", () => server.close());
      },
      (error: unknown) => {
        listening = undefined;
        throw new Error(
          `the sign-in can't come back: 127.0.0.1:${deps.port} can't be opened (${error instanceof Error ? error.message : String(error)}); set PORT`,
        );
      },
    );
    return listening;
  };
  // A `user` server in mcp.json: the port opens now, so a link shown before a restart can still come back here.
  if (deps.manager.servers().some((server) => deps.manager.personServer(server.name)))
    listen().catch((error: unknown) =>
      deps.logger.warn({ err: error instanceof Error ? error.message : String(error) }, "no OAuth callback port"),
    );
  return {
    ...made,
    async connectLink(pending) {
      if (deps.consoleMode) await listen();
      return made.connectLink(pending);
    },
  };
}

export function createProcessConnections(deps: {
  readonly address: ClientAddress;
  readonly store: KeyValueStore;
  readonly key: ApprovalKey;
  readonly manager: McpManager;
  readonly logger: Logger;
  readonly clock?: () => number;
}): ProcessConnections {
  const { address, store, key, manager, logger } = deps;
  const clock = deps.clock ?? Date.now;
  const connections = createPersonConnections({
    store: createConnectionStore(store, createSealedBox(key), clock),
    address,
    logger,
    clock,
  });
  manager.useConnections({ connections, store });
  let grants: ConnectionGrants | undefined;
  const flow = createConnectFlow({
    connections,
    states: createConnectStates(store, key, clock),
    server: (name) => manager.personServer(name)?.info,
    check: async (grant) => (grants ? grants.check(grant) : "gone"),
    connected: async (grant) => grants?.connected(grant),
    logger,
  });
  return {
    connections,
    flow,
    listener: oauthListener(flow, address, logger),
    // A schedule's slot does not wait: its link only connects the owner (see NO_RUN).
    connectLink: (pending) =>
      flow.link({
        owner: ownerOf(pending.origin),
        server: pending.connect!.server,
        ...(pending.origin.schedule ? { runId: NO_RUN, callId: NO_RUN } : { runId: pending.runId, callId: pending.callId }),
      }),
    bind(given) {
      grants = given;
    },
    people: {
      async list(origin) {
        const held = new Map((await connections.list(ownerOf(origin))).map((entry) => [entry.server, entry.connectedAt]));
        return manager
          .servers()
          .filter((server) => manager.personServer(server.name))
          .map((server) => ({ server: server.name, ...(held.has(server.name) ? { connectedAt: held.get(server.name)! } : {}) }));
      },
      async disconnect(origin, name) {
        const server = manager.personServer(name)?.info;
        if (!server) return "unknown";
        return (await connections.disconnect(ownerOf(origin), server)) ? "disconnected" : "not_connected";
      },
    },
  };
}
