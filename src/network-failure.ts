// What went wrong on the way to a server, read from an error and the errors it wraps: Node's
// system errors (DNS, refused, unreachable, reset), fetch's timeouts, TLS refusals. The model's
// and the chat surfaces' failure lines both say it in these words.

export type NetworkCause =
  | { readonly kind: "dns"; readonly code: string; readonly host?: string }
  | { readonly kind: "refused"; readonly code: string }
  | { readonly kind: "unreachable"; readonly code: string }
  | { readonly kind: "reset"; readonly code: string }
  | { readonly kind: "timeout"; readonly code?: string }
  | { readonly kind: "tls"; readonly code: string };

const KIND_OF_CODE: Readonly<Record<string, NetworkCause["kind"]>> = {
  ENOTFOUND: "dns",
  EAI_AGAIN: "dns",
  EAI_FAIL: "dns",
  EAI_NONAME: "dns",
  ECONNREFUSED: "refused",
  EHOSTUNREACH: "unreachable",
  ENETUNREACH: "unreachable",
  ECONNRESET: "reset",
  EPIPE: "reset",
  UND_ERR_SOCKET: "reset",
  ETIMEDOUT: "timeout",
  UND_ERR_CONNECT_TIMEOUT: "timeout",
  UND_ERR_HEADERS_TIMEOUT: "timeout",
  UND_ERR_BODY_TIMEOUT: "timeout",
  CERT_HAS_EXPIRED: "tls",
  DEPTH_ZERO_SELF_SIGNED_CERT: "tls",
  SELF_SIGNED_CERT_IN_CHAIN: "tls",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "tls",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "tls",
  ERR_TLS_CERT_ALTNAME_INVALID: "tls",
};

const PHRASE: Readonly<Record<NetworkCause["kind"], string>> = {
  dns: "DNS lookup failed",
  refused: "connection refused",
  unreachable: "network unreachable",
  reset: "connection reset",
  timeout: "no answer in time",
  tls: "TLS certificate not accepted",
};

/** Node's own wording of a system error (`getaddrinfo ENOTFOUND host`, `connect ECONNREFUSED 127.0.0.1:9`), for an error that kept only the text of the one it wrapped. */
const SYSTEM_ERROR_TEXT = /\b(?:getaddrinfo|connect|read|write) (E[A-Z_]+)(?: (\S+))?/;

const MAX_DEPTH = 6;

/** The errors `error` wraps, nearest first: `cause` (fetch, the openai SDK), `original` (Slack's Web API client), an AggregateError's first. */
function* chain(error: unknown): Generator<Record<string, unknown>> {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && current !== null && typeof current === "object"; depth++) {
    const record = current as Record<string, unknown>;
    yield record;
    const errors = record.errors;
    current = record.cause ?? record.original ?? (Array.isArray(errors) ? errors[0] : undefined);
  }
}

function causeOfCode(code: string, host: unknown): NetworkCause | undefined {
  const kind = KIND_OF_CODE[code];
  if (kind === undefined) return undefined;
  if (kind === "dns") return { kind, code, ...(typeof host === "string" ? { host } : {}) };
  return { kind, code };
}

/** The network cause of `error`, if that is what failed. Never throws. */
export function networkCause(error: unknown): NetworkCause | undefined {
  try {
    for (const link of chain(error)) {
      const found = typeof link.code === "string" ? causeOfCode(link.code, link.hostname) : undefined;
      if (found) return found;
      if (link.name === "TimeoutError") return { kind: "timeout" };
    }
    for (const link of chain(error)) {
      const match = typeof link.message === "string" ? SYSTEM_ERROR_TEXT.exec(link.message) : null;
      const found = match ? causeOfCode(match[1]!, match[2]) : undefined;
      if (found) return found;
    }
  } catch {
    // A getter that throws is no network cause.
  }
  return undefined;
}

/** The message of the innermost error `error` wraps (fetch's own "bad port", "invalid URL"…), if it wraps any. Never throws. */
export function innermostMessage(error: unknown): string | undefined {
  let message: string | undefined;
  try {
    let depth = 0;
    for (const link of chain(error)) if (depth++ > 0 && typeof link.message === "string" && link.message !== "") message = link.message;
  } catch {
    // A getter that throws leaves what was found so far.
  }
  return message;
}

/** `DNS lookup failed: ENOTFOUND`, `connection refused: ECONNREFUSED`, `no answer in time`. */
export function networkCausePhrase(cause: NetworkCause): string {
  return cause.code === undefined ? PHRASE[cause.kind] : `${PHRASE[cause.kind]}: ${cause.code}`;
}
