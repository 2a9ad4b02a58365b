// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are ${VAR} references as the servers file writes them
// A server's `auth` entry in mcp.json: the three types, secrets from the environment, one line
// naming the server and the field for each mistake, and files written before `auth` existed.
import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadMcpConfig, parseMcpConfig } from "../../../../src/tools/mcp/mcp-config.js";
import { repoRoot } from "../../../support/repo-paths.js";
import { mcpConfigErrorOf } from "../../../support/config-error.js";

const PEM = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();

const parse = (entry: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
  parseMcpConfig(JSON.stringify({ mcpServers: { docs: { url: "https://mcp.example.com/mcp", ...entry } } }), env, "mcp.json")[0]!;

describe("an MCP server's auth entry", () => {
  it("no auth entry: discovered at the server's first 401", () => {
    expect(parse({}).auth).toBeUndefined();
  });

  it("user, with a pre-registered client whose secret comes from the environment", () => {
    const server = parse(
      { auth: { type: "user", clientId: "bot", clientSecret: "${DOCS_SECRET}", scope: "read write" } },
      { DOCS_SECRET: "s3cret" },
    );
    expect(server.auth).toEqual({ type: "user", clientId: "bot", clientSecret: "s3cret", scope: "read write" });
  });

  it("service with a private key (PEM from the environment) and its algorithm", () => {
    const server = parse({ auth: { type: "service", clientId: "bot", privateKey: "${KEY}", signingAlgorithm: "ES256" } }, { KEY: PEM });
    expect(server.auth).toMatchObject({ type: "service", clientId: "bot", signingAlgorithm: "ES256" });
    expect(server.auth?.privateKey).toBe(PEM);
  });

  it("none", () => {
    expect(parse({ auth: { type: "none" } }).auth).toEqual({ type: "none" });
  });

  it.each([
    ["an unknown type", { type: "person" }, /field "auth\.type": expects "user", "service" or "none"$/],
    ["an unknown field", { type: "user", clientSecrett: "x" }, /unknown field "auth\.clientSecrett"$/],
    [
      "an unset secret",
      { type: "user", clientId: "bot", clientSecret: "${NOPE}" },
      /field "auth\.clientSecret" uses \$\{NOPE\}, which is not set/,
    ],
    ["a secret without its client", { type: "user", clientSecret: "x" }, /field "auth\.clientSecret": needs auth\.clientId/],
    ["service without a client", { type: "service" }, /field "auth\.clientId": is needed for "type": "service"$/],
    ["service without a secret or key", { type: "service", clientId: "bot" }, /field "auth\.clientSecret": or auth\.privateKey is needed/],
    [
      "a key that is not PEM",
      { type: "service", clientId: "bot", privateKey: "nope" },
      /field "auth\.privateKey": is not a PEM private key$/,
    ],
    [
      "an unknown algorithm",
      { type: "service", clientId: "b", privateKey: PEM, signingAlgorithm: "HS1" },
      /field "auth\.signingAlgorithm": expects one of RS256/,
    ],
    [
      "an algorithm without a key",
      { type: "service", clientId: "b", clientSecret: "s", signingAlgorithm: "RS256" },
      /needs auth\.privateKey$/,
    ],
    [
      "a secret and a key",
      { type: "service", clientId: "b", clientSecret: "s", privateKey: PEM },
      /field "auth\.privateKey": and auth\.clientSecret exclude each other$/,
    ],
    ["a key for a user server", { type: "user", clientId: "b", privateKey: PEM }, /field "auth\.privateKey": is for "type": "service"/],
    ["settings with none", { type: "none", clientId: "b" }, /field "auth\.clientId": is not used with "type": "none"$/],
  ])("%s: one line naming the server and the field", (_case, auth, expected) => {
    const message = mcpConfigErrorOf(() => parse({ auth }));
    expect(message).toMatch(/^mcp\.json: server "docs": /);
    expect(message).toMatch(expected);
  });

  it("OAuth and an Authorization header of its own: refused", () => {
    expect(mcpConfigErrorOf(() => parse({ headers: { Authorization: "Bearer x" }, auth: { type: "user" } }))).toBe(
      'mcp.json: server "docs": field "auth.type": "user" takes the place of an Authorization header; remove the header',
    );
  });

  it("a stdio server has no auth entry", () => {
    expect(() => parseMcpConfig(JSON.stringify({ mcpServers: { fs: { command: "x", auth: { type: "none" } } } }), {}, "mcp.json")).toThrow(
      'server "fs": unknown field "auth"',
    );
  });

  it("an mcp.json written before auth existed still loads, unchanged", () => {
    const servers = loadMcpConfig(
      "test/fixtures/mcp-json-before-auth/mcp.json",
      { HOME: "/home/ada", GITHUB_TOKEN: "ghp_x", WIKI_TOKEN: "w" },
      repoRoot,
    );
    expect(servers.map((server) => [server.name, server.transport.kind, server.auth])).toEqual([
      ["fs", "stdio", undefined],
      ["github", "stdio", undefined],
      ["wiki", "http", undefined],
    ]);
  });
});
