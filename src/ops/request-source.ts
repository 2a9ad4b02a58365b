// Who sent an HTTP request and whether it came over HTTPS, as seen through the reverse proxies the
// operator says stand in front of the bot (TRUST_PROXY). Without a trusted proxy the headers are
// the client's own words and are ignored: the address is the socket's. With n proxies each one
// appends the address it was called from to X-Forwarded-For, so the client is the n-th entry from
// the right (counting the socket's own address as the last): what a client writes into the header
// itself sits further left and is never taken. X-Forwarded-Proto is what the outermost proxy set
// (its first value; a client that wrote one itself changes only its own cookie with it).
import type { IncomingHttpHeaders } from "node:http";

export interface RequestSource {
  /** The client's address (the limiter's key): an IP as the socket or the proxy reports it. */
  readonly address: string;
  /** The client reached the outermost proxy over HTTPS. */
  readonly https: boolean;
}

/** What is read of a request (an IncomingMessage has it). */
export interface ArrivingRequest {
  readonly headers: IncomingHttpHeaders;
  readonly socket: { readonly remoteAddress?: string | undefined };
}

/** A forwarded entry longer than any address is junk; cut so a key stays small. */
const MAX_ADDRESS_CHARS = 64;

export function requestSource(request: ArrivingRequest, trustedProxies: number): RequestSource {
  const socketAddress = request.socket.remoteAddress ?? "unknown";
  if (trustedProxies === 0) return { address: socketAddress, https: false };
  const forwarded = headerText(request.headers["x-forwarded-for"])
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  const chain = [...forwarded, socketAddress];
  // Fewer entries than proxies: the request skipped some of them; the furthest one known is the best guess.
  const address = chain[Math.max(0, chain.length - 1 - trustedProxies)]!.slice(0, MAX_ADDRESS_CHARS);
  const proto = headerText(request.headers["x-forwarded-proto"]).split(",")[0]!.trim().toLowerCase();
  return { address, https: proto === "https" };
}

function headerText(value: string | readonly string[] | undefined): string {
  return typeof value === "string" ? value : (value ?? []).join(",");
}
