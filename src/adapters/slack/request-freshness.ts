// Slack signs `v0:<timestamp>:<body>`; Bolt refuses a timestamp more than 5 minutes in the past
// but not one in the future, and a signed request dated ahead stays replayable for as long as it
// is ahead. Any timestamp more than 5 minutes from local time, either way, is refused here
// before Bolt reads the request.
import type { IncomingMessage, ServerResponse } from "node:http";

export const MAX_CLOCK_SKEW_SECONDS = 5 * 60;

/** Pure: whether a request's X-Slack-Request-Timestamp header may be accepted. A missing one is left to Bolt (it refuses it). */
export function isFresh(header: string | string[] | undefined, nowMs: number): boolean {
  if (header === undefined) return true;
  const seconds = Number(Array.isArray(header) ? header[0] : header);
  return Number.isFinite(seconds) && Math.abs(nowMs / 1000 - seconds) <= MAX_CLOCK_SKEW_SECONDS;
}

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/** Wraps a request listener: a stale or future-dated request gets 401 and goes no further. */
export function rejectStale(listener: Listener, now: () => number): Listener {
  return (request, response) => {
    if (isFresh(request.headers["x-slack-request-timestamp"], now())) return listener(request, response);
    response.writeHead(401, { "Content-Type": "text/plain" }).end("stale or future-dated request");
  };
}
