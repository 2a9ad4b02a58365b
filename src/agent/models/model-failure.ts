// Why a call to an OpenAI-compatible server failed, in words a person can act on, and whether
// trying again can help. Pure: the openai SDK's error classes in, a ModelFailure out. Only
// model-openai.ts imports this file, so the SDK stays unloaded for the demo model.
//
// What counts as retryable is what the SDK itself retries (openai 6.30.1, client.ts
// shouldRetry): connection failures and timeouts, 408, 409, 429 and 5xx, unless the server's
// `x-should-retry` header says otherwise.
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  AuthenticationError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from "openai";
import type { ModelFailure } from "../../errors.js";
import { maskSecrets } from "../../logger.js";
import { innermostMessage, networkCause, networkCausePhrase } from "../../network-failure.js";

export interface ModelFailureContext {
  /** The base URL without credentials. */
  readonly server: string;
  readonly model: string;
  /** Per try. */
  readonly timeoutMs: number;
  /** Never shown, even when the server quotes it back. */
  readonly apiKey: string;
}

const SERVER_RUNNING = "check OPENAI_BASE_URL and that the model server is running";

/** Never throws; an error it does not know is described by its message and not retried. */
export function describeModelError(error: unknown, context: ModelFailureContext): ModelFailure {
  const { server } = context;
  if (error instanceof APIConnectionTimeoutError)
    return {
      cause: `no reply from ${server} within ${context.timeoutMs} ms`,
      fix: "check that the model server is running, or raise OPENAI_TIMEOUT_MS",
      retryable: true,
    };
  if (error instanceof APIConnectionError) {
    const network = networkCause(error);
    const detail = network ? networkCausePhrase(network) : innermostMessage(error);
    return {
      cause: `could not connect to ${server}${detail ? ` (${redact(detail, context.apiKey)})` : ""}`,
      fix: network?.kind === "dns" ? "check OPENAI_BASE_URL and the network" : SERVER_RUNNING,
      retryable: true,
    };
  }
  if (error instanceof APIError && typeof error.status === "number") return describeStatus(error, error.status, context);
  return { cause: `unexpected failure talking to ${server}: ${redact(messageOf(error), context.apiKey)}`, fix: "", retryable: false };
}

/**
 * A failure while the answer streamed, after the server took the request. Never throws. A stream
 * that broke off or that the server ended with an error event is worth another try; one that is
 * not in the chat format is not.
 */
export function describeStreamError(error: unknown, context: ModelFailureContext): ModelFailure {
  const { server } = context;
  if (error instanceof SyntaxError)
    return {
      cause: `the server at ${server} streamed something that is not in the OpenAI chat format`,
      fix: "check OPENAI_BASE_URL",
      retryable: false,
    };
  if (error instanceof APIError && error.status === undefined)
    return {
      cause: `the model server ended its answer with an error${serverMessage(error, context.apiKey)}`,
      fix: "check the model server",
      retryable: true,
    };
  const network = networkCause(error);
  const detail = network ? networkCausePhrase(network) : (innermostMessage(error) ?? messageOf(error));
  return {
    cause: `the answer from ${server} broke off (${redact(detail, context.apiKey)})`,
    fix: "check the model server",
    retryable: true,
  };
}

/** The server refused the request for asking to stream (a 4xx that names `stream`, e.g. 400 "stream not supported"): it is asked again without. */
export function refusedStreaming(error: unknown): boolean {
  if (!(error instanceof APIError) || typeof error.status !== "number") return false;
  const refusal = error.status >= 400 && error.status < 500 && ![401, 403, 404, 408, 409, 429].includes(error.status);
  return refusal && /stream/i.test(error.message);
}

function describeStatus(error: APIError, status: number, context: ModelFailureContext): ModelFailure {
  const said = serverMessage(error, context.apiKey);
  const answered = `the model server answered ${status}${said}`;
  const wait = serverWaitMs(error);
  const failure = (cause: string, fix: string, retryable: boolean): ModelFailure => ({
    cause,
    fix,
    retryable: serverSaysRetry(error) ?? retryable,
    status,
    // A wait of 0 asks for no pause: nothing to honour.
    ...(wait ? { retryAfterMs: wait } : {}),
  });
  if (error instanceof AuthenticationError) return failure(`the model server refused the key (401${said})`, "check OPENAI_API_KEY", false);
  if (error instanceof PermissionDeniedError)
    return failure(
      `the model server refused access to "${context.model}" (403${said})`,
      "check that OPENAI_API_KEY may use OPENAI_MODEL",
      false,
    );
  if (error instanceof NotFoundError)
    return failure(
      `the model server found no such model or path (404${said})`,
      `check OPENAI_MODEL ("${context.model}") and OPENAI_BASE_URL (${context.server}; it usually ends in /v1)`,
      false,
    );
  if (error instanceof RateLimitError)
    return failure(`the model server is rate limiting (429${said})`, "wait a little, or check the account's limits and quota", true);
  if (status >= 500) return failure(`the model server is failing (${status}${said})`, "check the model server", true);
  if (status === 408 || status === 409) return failure(answered, "check the model server", true);
  return failure(`the model server refused the request (${status}${said})`, "check OPENAI_MODEL and the model server's log", false);
}

/** The server's own say (`x-should-retry`), which the SDK obeys over the status. */
function serverSaysRetry(error: APIError): boolean | undefined {
  const header = error.headers?.get("x-should-retry");
  return header === "true" ? true : header === "false" ? false : undefined;
}

function serverMessage(error: APIError, apiKey: string): string {
  const body = error.error as { message?: unknown } | undefined;
  const text = typeof body?.message === "string" ? body.message.trim() : "";
  if (text === "") return "";
  const short = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return `: "${redact(short, apiKey)}"`;
}

function messageOf(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return "an error that could not be described";
  }
}

function redact(text: string, apiKey: string): string {
  return maskSecrets(apiKey.length > 0 ? text.split(apiKey).join("[secret]") : text);
}

function finite(value: number): number | undefined {
  return Number.isFinite(value) ? value : undefined;
}

/** The server's own wait, as the SDK reads it (client.ts retryRequest): `retry-after-ms`, else `retry-after` (seconds or a date). */
function serverWaitMs(error: unknown): number | undefined {
  const headers = error instanceof APIError ? error.headers : undefined;
  let wait: number | undefined = finite(Number.parseFloat(headers?.get("retry-after-ms") ?? ""));
  const after = headers?.get("retry-after");
  if (after && !wait) {
    const seconds = Number.parseFloat(after);
    wait = finite(Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1_000);
  }
  return wait === undefined ? undefined : Math.max(0, wait);
}

/** The SDK's own backoff when the server names no wait: 0.5 s doubling per retry up to 8 s, less up to a quarter at random. */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  return Math.min(500 * 2 ** (retry - 1), 8_000) * (1 - random() * 0.25);
}

/** How long to wait before the next try, as the SDK waits: the server's wait, else the backoff. */
export function retryDelayMs(error: unknown, retry: number, random: () => number = Math.random): number {
  return serverWaitMs(error) ?? backoffMs(retry, random);
}
