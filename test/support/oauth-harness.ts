// The product in console mode with a `user` MCP server behind a real authorization server: the
// protected server and its authorization server (authorization-server.ts), a scripted model, an
// mcp.json naming the server, and a browser that opens the console's Connect line by plain GET
// requests following redirects (the authorization server signs in by itself).
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach } from "vitest";
import { type AppHarness, type ConsoleApp, useAppHarness } from "./app-harness.js";
import { type ProtectedMcpServer, startProtectedMcpServer } from "./authorization-server.js";
import { type FakeOpenAI, startFakeOpenAI } from "./fake-openai-server.js";
import { freePort } from "./free-port.js";

export interface OAuthHarness {
  readonly apps: AppHarness;
  /** Starts the servers and the console; `auth`: the server's entry in mcp.json (none: discovered at its 401). */
  start(options?: { auth?: object; accessTokenTtlSeconds?: number; bareChallenge?: boolean; env?: NodeJS.ProcessEnv }): Promise<OAuthSetup>;
}

export interface OAuthSetup {
  readonly console: ConsoleApp;
  readonly server: ProtectedMcpServer;
  readonly model: FakeOpenAI;
  readonly port: number;
  /** The link of the latest `Connect docs: <url>` line, once it shows. */
  connectLink(count?: number): Promise<string>;
}

export const CONNECT_LINE = /Connect docs: (\S+)/g;

export function useOAuthHarness(): OAuthHarness {
  const apps = useAppHarness();
  const opened: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((item) => item.close()));
  });
  return {
    apps,
    async start(options = {}) {
      const server = await startProtectedMcpServer({
        ...(options.accessTokenTtlSeconds ? { accessTokenTtlSeconds: options.accessTokenTtlSeconds } : {}),
        ...(options.bareChallenge ? { bareChallenge: true } : {}),
      });
      opened.push(server);
      const model = await startFakeOpenAI();
      opened.push(model);
      const config = join(apps.folder, "mcp.json");
      await writeFile(
        config,
        JSON.stringify({ mcpServers: { docs: { url: server.url, ...(options.auth ? { auth: options.auth } : {}) } } }),
      );
      const port = await freePort();
      const console = await apps.startConsole({
        MCP_CONFIG: config,
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: model.baseUrl,
        OPENAI_MODEL: "gpt-4o-mini",
        PORT: String(port),
        APPROVAL_SECRET: "a-test-approval-secret-0123456789",
        MEMORY_EXTRACT_FACTS: "no",
        ...options.env,
      });
      return {
        console,
        server,
        model,
        port,
        async connectLink(count = 1) {
          await console.waitFor(new RegExp(`(Connect docs: \\S+[\\s\\S]*){${count}}`), `Connect line ${count}`);
          const links = [...console.shown().matchAll(CONNECT_LINE)].map((match) => match[1]!);
          return links[count - 1]!;
        },
      };
    },
  };
}
