// People's connections without the chat: the connection store, the Connect flow and its /oauth
// pages on 127.0.0.1, over a store a test can open twice (two processes sharing it: a SQLite
// file, or the Redis a test names),
// against the real authorization server of authorization-server.ts. The runs' side of a grant is
// a stand-in that records each `connected` (the console tests cover the runs' side).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach } from "vitest";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import type { ConnectGrant } from "../../src/tools/mcp/auth/connect-state.js";
import { createConnectStates } from "../../src/tools/mcp/auth/connect-state.js";
import { type ConnectFlow, type GrantCheck, createConnectFlow } from "../../src/tools/mcp/auth/connect-flow.js";
import { createConnectionStore } from "../../src/tools/mcp/auth/connection-store.js";
import { oauthListener } from "../../src/tools/mcp/auth/oauth-routes.js";
import { createPersonConnections, type PersonConnections, type PersonServer } from "../../src/tools/mcp/auth/person-connections.js";
import { createSealedBox } from "../../src/tools/mcp/auth/sealed-box.js";
import { type ProtectedMcpServer, startProtectedMcpServer } from "./authorization-server.js";
import type { ToolSetup } from "./mcp-http-server.js";
import { temporaryFolder } from "./temporary-folder.js";

export const KEY = Buffer.from("a-test-approval-secret-0123456789");
export const ADA = { surface: "console", person: "ada" } as const;

/** One "process": its own store client on the shared file, its own connections and flow. */
export interface ConnectionsProcess {
  readonly store: KeyValueStore;
  readonly connections: PersonConnections;
  readonly flow: ConnectFlow;
}

export interface ConnectionsSetup {
  readonly server: ProtectedMcpServer;
  readonly info: PersonServer;
  /** The SQLite file, unless the test named a store. */
  readonly storeFile: string;
  readonly storeUrl: string;
  /** Where the authorization server sends the person back. */
  readonly redirectUrl: string;
  /** The test's clock (epoch ms), shared by every process. */
  readonly clock: { now: number };
  readonly grants: ConnectGrant[];
  /** What the runs answer about a grant (default "ok"). */
  check: GrantCheck;
  process(): Promise<ConnectionsProcess>;
  /** The Connect link a paused run of ada's would show. */
  link(from: ConnectionsProcess, grant?: Partial<ConnectGrant>): Promise<string>;
}

export function useConnectionsHarness(): {
  start(options?: { accessTokenTtlSeconds?: number; storeUrl?: string; tools?: ToolSetup }): Promise<ConnectionsSetup>;
} {
  const closing: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });
  return {
    async start(options = {}) {
      const folder = await temporaryFolder();
      closing.push(() => folder.remove());
      const server = await startProtectedMcpServer({
        ...(options.accessTokenTtlSeconds ? { accessTokenTtlSeconds: options.accessTokenTtlSeconds } : {}),
        ...(options.tools ? { tools: options.tools } : {}),
      });
      closing.push(() => server.close());
      // The callback's address: a port of its own on 127.0.0.1, answered by the process that made the latest link.
      let listener: ReturnType<typeof oauthListener> | undefined;
      const http: Server = createServer((request, response) => (listener ? listener(request, response) : response.writeHead(503).end()));
      await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
      closing.push(() => new Promise((resolve) => http.close(resolve)));
      const address = { redirectUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}/oauth/callback` };
      const info: PersonServer = { name: "docs", url: server.url, auth: { type: "user" } };
      const storeFile = join(folder.path, "bot.sqlite");
      const storeUrl = options.storeUrl ?? `sqlite://${storeFile}`;
      const clock = { now: Date.now() };
      const grants: ConnectGrant[] = [];
      const setup: ConnectionsSetup = {
        server,
        info,
        storeFile,
        storeUrl,
        redirectUrl: address.redirectUrl,
        clock,
        grants,
        check: "ok",
        async process() {
          const store = await openStore(storeUrl, silentLogger);
          closing.push(() => store.close());
          const now = () => clock.now;
          const connections = createPersonConnections({
            store: createConnectionStore(
              store,
              createSealedBox(async () => KEY),
              now,
            ),
            address,
            logger: silentLogger,
            clock: now,
          });
          const flow = createConnectFlow({
            connections,
            states: createConnectStates(store, async () => KEY, now),
            server: (name) => (name === "docs" ? info : undefined),
            check: async () => setup.check,
            connected: async (grant) => void grants.push(grant),
            logger: silentLogger,
          });
          return { store, connections, flow };
        },
        async link(from, grant = {}) {
          listener = oauthListener(from.flow, address, silentLogger);
          return from.flow.link({ owner: ADA, server: "docs", runId: "run_1", callId: "call_1", ...grant });
        },
      };
      return setup;
    },
  };
}
