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
  start(options?: { auth?: object; accessTokenTtlSeconds?: number; env?: NodeJS.ProcessEnv }): Promise<OAuthSetup>;
}

export interface OAuthSetup {
  readonly console: ConsoleApp;
  readonly server: ProtectedMcpServer;
  readonly model: FakeOpenAI;
  readonly port: number;
  /** The link of the latest `Connect docs: <url>` line, once it shows. */
  connectLink(count?: number): Promise<string>;
}

/**
 * What a browser shows after opening `url`: the last page's status and text, every redirect
 * followed with the cookies each host set (the authorization server keeps its sign-in in one).
 */
export async function openInBrowser(url: string): Promise<{ status: number; text: string }> {
  const jar = new Map<string, Map<string, string>>();
  let next = url;
  for (let hop = 0; hop < 20; hop++) {
    const host = new URL(next).host;
    const cookies = jar.get(host) ?? new Map<string, string>();
    const response = await fetch(next, {
      redirect: "manual",
      headers: cookies.size > 0 ? { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; ") } : {},
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim());
    }
    jar.set(host, cookies);
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      next = new URL(location, next).toString();
      continue;
    }
    const html = await response.text();
    return {
      status: response.status,
      text: html
        .replace(/<title>[^<]*<\/title>/, "")
        .replace(/<[^>]+>/g, " ")
        .replace(/\s+/g, " ")
        .trim(),
    };
  }
  throw new Error(`more than 20 redirects from ${url}`);
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
      const server = await startProtectedMcpServer(
        options.accessTokenTtlSeconds ? { accessTokenTtlSeconds: options.accessTokenTtlSeconds } : {},
      );
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
