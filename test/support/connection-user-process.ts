// One bot process using ada's connection to the `docs` server, for the refresh tests: it opens
// the shared store, says "ready", and for each line from stdin does what a run does before and
// during a call: readies her connection (refreshed first when its token is ending, once across
// processes), then calls `whoami` through her session. It answers each line with one JSON line:
// `{needs}` when she must connect first (a run shows her the Connect link then), `{answer}` with
// the tool's text, or `{error}`. With HANG_TOKEN_WRITE=1 it never finishes storing tokens: it
// prints `{writing: true}` when it starts to, between the token endpoint's answer and the store
// write, where a test kills it.
//   env: STORE_URL, MCP_URL, REDIRECT_URL, SEALING_KEY (base64); REFRESH_LOCK_MS, HANG_TOKEN_WRITE (optional)
import { createInterface } from "node:readline";
import type { TaskOrigin } from "../../src/contracts/types.js";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import { type ConnectionStore, createConnectionStore } from "../../src/tools/mcp/auth/connection-store.js";
import { createPersonConnections } from "../../src/tools/mcp/auth/person-connections.js";
import { createSealedBox } from "../../src/tools/mcp/auth/sealed-box.js";
import { PersonServer } from "../../src/tools/mcp/person-server.js";
import { serverConfig } from "./mcp-servers.js";

const { STORE_URL, MCP_URL, REDIRECT_URL, SEALING_KEY, REFRESH_LOCK_MS, HANG_TOKEN_WRITE } = process.env;
if (!STORE_URL || !MCP_URL || !REDIRECT_URL || !SEALING_KEY)
  throw new Error("STORE_URL, MCP_URL, REDIRECT_URL and SEALING_KEY are required");
const key = Buffer.from(SEALING_KEY, "base64");

const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
const origin: TaskOrigin = { surface: "console", conversationKey: "console:ada", requester: { id: "ada" }, place: {} };

const store = await openStore(STORE_URL, silentLogger);
const sealed = createConnectionStore(
  store,
  createSealedBox(async () => key),
  Date.now,
);
const connectionStore: ConnectionStore =
  HANG_TOKEN_WRITE === "1"
    ? {
        ...sealed,
        saveTokens: () => {
          say({ writing: true });
          return new Promise<never>(() => {});
        },
      }
    : sealed;
const connections = createPersonConnections({
  store: connectionStore,
  address: { redirectUrl: REDIRECT_URL },
  logger: silentLogger,
  clock: Date.now,
  ...(REFRESH_LOCK_MS ? { refreshLockMs: Number(REFRESH_LOCK_MS) } : {}),
});
const docs = new PersonServer(serverConfig("docs", { kind: "http", url: MCP_URL, headers: {}, sse: false }, { auth: { type: "user" } }), {
  logger: silentLogger,
  people: () => ({ connections, store }),
  onChange: () => {},
});

async function useConnection(): Promise<object> {
  const needs = await docs.needsConnection(origin);
  if (needs) return { needs };
  const result = await docs.callTool("whoami", {}, { signal: new AbortController().signal, timeoutMs: 10_000, origin });
  return { answer: (result.content[0] as { text?: string } | undefined)?.text };
}

say({ ready: true });
for await (const _line of createInterface({ input: process.stdin }))
  say(await useConnection().catch((error: unknown) => ({ error: error instanceof Error ? error.message : String(error) })));
await docs.close();
await store.close();
