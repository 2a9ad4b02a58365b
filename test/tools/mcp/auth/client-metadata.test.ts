// Which client the bot is to a provider that accepts client ID metadata documents: its own
// document at PUBLIC_URL/oauth/client-metadata.json when that address is https, or the one an
// operator published at MCP_CLIENT_METADATA_URL; never an http address (a provider can't trust it).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { clientAddress } from "../../../../src/app-connections.js";
import { loadConfig } from "../../../../src/config.js";
import { createLogger } from "../../../../src/logger.js";
import type { ConnectFlow } from "../../../../src/tools/mcp/auth/connect-flow.js";
import { oauthListener } from "../../../../src/tools/mcp/auth/oauth-routes.js";
import type { ClientAddress } from "../../../../src/tools/mcp/auth/person-auth-provider.js";

const EXPECTED = "expects the https address where the bot's client metadata document is published (no user, query or fragment)";

describe("the bot's client metadata document", () => {
  it("is the client ID only at an https address", () => {
    expect(clientAddress(loadConfig({ PUBLIC_URL: "https://bot.example.com/team/" }), false)).toEqual({
      redirectUrl: "https://bot.example.com/team/oauth/callback",
      clientMetadataUrl: "https://bot.example.com/team/oauth/client-metadata.json",
    });
    expect(clientAddress(loadConfig({ PUBLIC_URL: "http://10.0.0.5:3000" }), false)).toEqual({
      redirectUrl: "http://10.0.0.5:3000/oauth/callback",
    });
    expect(clientAddress(loadConfig({ PORT: "4100" }), true)).toEqual({ redirectUrl: "http://127.0.0.1:4100/oauth/callback" });
    expect(clientAddress(loadConfig({}), false)).toBeUndefined();
  });

  it("can be published elsewhere with MCP_CLIENT_METADATA_URL", () => {
    const published = "https://example.com/bot/client-metadata.json";
    expect(clientAddress(loadConfig({ PORT: "4100", MCP_CLIENT_METADATA_URL: published }), true)).toEqual({
      redirectUrl: "http://127.0.0.1:4100/oauth/callback",
      clientMetadataUrl: published,
    });
  });

  it.each(["http://example.com/client.json", "https://example.com/", "https://example.com/c.json?x=1", "client.json"])(
    "refuses MCP_CLIENT_METADATA_URL=%s with one line",
    (value) => {
      expect(() => loadConfig({ MCP_CLIENT_METADATA_URL: value })).toThrow(`MCP_CLIENT_METADATA_URL: ${EXPECTED} (got "${value}")`);
    },
  );

  describe("served under /oauth", () => {
    let server: Server | undefined;
    afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

    const unusedFlow: ConnectFlow = {
      link: () => Promise.reject(new Error("not used")),
      open: () => Promise.reject(new Error("not used")),
      callback: () => Promise.reject(new Error("not used")),
    };

    async function serve(address: ClientAddress): Promise<string> {
      server = createServer(oauthListener(unusedFlow, address, createLogger("silent")));
      await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/client-metadata.json`;
    }

    it("names the address it is published at as its client ID, with the redirect the bot registers", async () => {
      const address = { redirectUrl: "http://127.0.0.1:4100/oauth/callback", clientMetadataUrl: "https://example.com/bot/client.json" };
      const response = await fetch(await serve(address));
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(await response.json()).toEqual({
        client_id: "https://example.com/bot/client.json",
        client_name: "guarded-agent-bot",
        client_uri: "https://example.com",
        redirect_uris: ["http://127.0.0.1:4100/oauth/callback"],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      });
    });

    it("is not served where the bot has no such document", async () => {
      const response = await fetch(await serve({ redirectUrl: "http://127.0.0.1:4100/oauth/callback" }));
      expect(response.status).toBe(404);
    });
  });
});
