// The bot's OAuth pages under /oauth on its HTTP port (PUBLIC_URL): the Connect link that sends a
// person to the server's sign-in, the callback that comes back from it, and the client ID
// metadata document that names the bot to authorization servers that accept one. Requests are
// untrusted: each answers with a short page, never a stack trace, and nothing here throws.
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Logger } from "../../../logger.js";
import { CALLBACK_PATH, CLIENT_METADATA_PATH, CONNECT_PATH, type ConnectFlow, type FlowReply } from "./connect-flow.js";
import { type ClientAddress, clientMetadataOf } from "./person-auth-provider.js";

export const OAUTH_PREFIX = "/oauth";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]!);

const HEADERS = {
  "Cache-Control": "no-store",
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
};

function send(response: ServerResponse, reply: FlowReply): void {
  if (reply.kind === "redirect") {
    response.writeHead(302, { ...HEADERS, Location: reply.url }).end();
    return;
  }
  const title = escapeHtml(reply.text);
  response
    .writeHead(reply.status, { ...HEADERS, "Content-Type": "text/html; charset=utf-8" })
    .end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><p>${title}</p></body></html>\n`);
}

/** One listener for everything under /oauth. */
export function oauthListener(flow: ConnectFlow, address: ClientAddress, logger: Logger): RequestListener {
  return (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://bot.invalid");
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { ...HEADERS, Allow: "GET, HEAD" }).end();
      return;
    }
    const answer = (reply: Promise<FlowReply>) =>
      reply.then(
        (done) => send(response, done),
        (error: unknown) => {
          logger.error({ err: error, path: url.pathname }, "an OAuth page failed");
          send(response, { kind: "page", status: 500, text: "Something went wrong. Nothing was changed; try again." });
        },
      );
    if (url.pathname === CONNECT_PATH) return void answer(flow.open(url.searchParams.get("state")));
    if (url.pathname === CALLBACK_PATH) return void answer(flow.callback(url.searchParams));
    if (url.pathname === CLIENT_METADATA_PATH && address.clientMetadataUrl) {
      const document = { client_id: address.clientMetadataUrl, ...clientMetadataOf(address, undefined) };
      response.writeHead(200, { ...HEADERS, "Content-Type": "application/json" }).end(JSON.stringify(document));
      return;
    }
    send(response, { kind: "page", status: 404, text: "Not found." });
  };
}
