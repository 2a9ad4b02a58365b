// How the bot is reached from outside: the public address people and platforms use, and the
// reverse proxies that stand between them and the bot's HTTP ports (TLS usually ends there).
import { z } from "zod";
import { area } from "./area.js";
import { yesNo } from "./values.js";
import { variable } from "./variable.js";

const MAX_PROXIES = 10;

/**
 * An address every link is built from: a credential, a query or a fragment in it would end up in
 * each of them, so none is taken. `accepts` says which of the plain addresses fit.
 */
const plainAddress = (expected: string, range: string, accepts: (url: URL) => boolean) => ({
  schema: z.string().transform((value, context) => {
    const url = URL.canParse(value) ? new URL(value) : undefined;
    const plain = url?.username === "" && url.password === "" && url.search === "" && url.hash === "";
    if (plain && accepts(url)) return value;
    context.addIssue({ code: "custom", message: expected });
    return z.NEVER;
  }),
  range,
});

/** An http(s) base address. */
const publicAddress = () =>
  plainAddress(
    "expects the http(s) address the bot is reached at, e.g. https://bot.example.com (no user, query or fragment)",
    "http(s) URL",
    (url) => url.protocol === "https:" || url.protocol === "http:",
  );

/** An https address with a path: a client ID metadata document's URL is the bot's client ID. */
const metadataAddress = () =>
  plainAddress(
    "expects the https address where the bot's client metadata document is published (no user, query or fragment)",
    "https URL",
    (url) => url.protocol === "https:" && url.pathname !== "/",
  );

/** yes (one proxy), no (none), or how many proxies stand in front, as the docs' TRUST_PROXY says. */
const proxyCount = () => {
  const expected = `expects no, yes (one proxy) or how many proxies stand in front of the bot, 0 to ${MAX_PROXIES}`;
  const word = yesNo().schema;
  return {
    schema: z.string().transform((value, context) => {
      const answer = word.safeParse(value);
      if (answer.success) return answer.data ? 1 : 0;
      const count = /^\s*\d{1,2}\s*$/.test(value) ? Number(value) : Number.NaN;
      if (count <= MAX_PROXIES) return count;
      context.addIssue({ code: "custom", message: expected });
      return z.NEVER;
    }),
    range: `yes/no or 0–${MAX_PROXIES}`,
  };
};

/** Read by the Slack area too: the install's redirect comes back to it. */
export const PUBLIC_URL = variable("PUBLIC_URL", publicAddress(), {
  meaning:
    "where people and platforms reach the bot from outside, e.g. `https://bot.example.com`; an `https://` one marks the explorer's session cookie `Secure`. Needed by a Slack or Discord bot with an MCP server that signs each person in: their sign-in comes back to `PUBLIC_URL/oauth/callback` (see [MCP servers behind OAuth](mcp.md#mcp-servers-behind-oauth)), and by a Slack app installed in several workspaces: the install comes back to `PUBLIC_URL/slack/oauth_redirect` (see [Distribute to several workspaces](slack.md#distribute-to-several-workspaces)); the console uses `http://127.0.0.1:PORT` without it",
});

export const publicAddressArea = area({
  title: "Public address",
  about: "How the bot is reached from outside: its public address, and the reverse proxies in front of its HTTP ports.",
  variables: {
    publicUrl: PUBLIC_URL,
    clientMetadataUrl: variable("MCP_CLIENT_METADATA_URL", metadataAddress(), {
      meaning:
        "where the bot's OAuth client metadata document is published when it is not `PUBLIC_URL/oauth/client-metadata.json` (an `https://` `PUBLIC_URL` serves it there by itself): publish the document that page shows at this address, and the bot uses the address as its client ID with providers that accept such documents (see [which client the bot is](mcp.md#which-client-the-bot-is))",
    }),
    trustedProxies: variable("TRUST_PROXY", proxyCount(), {
      default: "no",
      meaning:
        "the reverse proxies in front of `PORT` and `ADMIN_PORT`: `yes` for one, or their number. The explorer then counts sign-in tries by the client address they forward (`X-Forwarded-For`, that many entries from the right, where a client can't write) and takes `X-Forwarded-Proto: https` as HTTPS; `no`: both headers are ignored (see [the explorer](operations.md#runs-usage-and-cost))",
    }),
  },
});
