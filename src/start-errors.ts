// Why Slack or Discord could not be started, as the one line printed before exiting: what
// failed, the cause (DNS, refused, timeout, an HTTP status) and the fix. Pure: it reads the
// errors the Slack Web API client and discord.js throw without their classes (a status or a
// Slack error code, and the network cause inside).
import type { Config } from "./config.js";
import { maskSecrets, type Logger } from "./logger.js";
import { networkCause, networkCausePhrase } from "./network-failure.js";

export type ChatSurface = "slack" | "discord";

export const isChatSurface = (name: string): name is ChatSurface => name === "slack" || name === "discord";

export interface StartFailure {
  readonly cause: string;
  /** A sentence that starts with a verb, or "" when nothing is known. */
  readonly fix: string;
  /** Whether starting again (the process manager's restart) can help without a change. */
  readonly retryable: boolean;
}

const PLATFORM: Readonly<Record<ChatSurface, { host: string; url: string; token: string }>> = {
  slack: { host: "slack.com", url: "SLACK_API_URL", token: "SLACK_BOT_TOKEN" },
  discord: { host: "discord.com", url: "DISCORD_API_URL", token: "DISCORD_TOKEN" },
};

const STATUS_TEXT: Readonly<Record<number, string>> = { 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 429: "Too Many Requests" };

/** `host[:port]` of the configured API URL (never its credentials), or the platform's own host. */
function hostOf(surface: ChatSurface, apiUrl: string | undefined): string {
  if (!apiUrl) return PLATFORM[surface].host;
  try {
    return new URL(apiUrl).host;
  } catch {
    return PLATFORM[surface].host;
  }
}

function field(error: unknown, name: string): unknown {
  return error !== null && typeof error === "object" ? (error as Record<string, unknown>)[name] : undefined;
}

/** The HTTP status a platform answered: Slack's `statusCode`, discord.js's `status`. */
function statusOf(error: unknown): number | undefined {
  const status = field(error, "statusCode") ?? field(error, "status");
  return typeof status === "number" && status >= 400 ? status : undefined;
}

/** Slack's `ok: false` answer code (`data.error`), e.g. "not_allowed_token_type". */
function slackCodeOf(error: unknown): string | undefined {
  const code = field(field(error, "data"), "error");
  return typeof code === "string" ? code : undefined;
}

function messageOf(error: unknown): string {
  try {
    return maskSecrets(error instanceof Error ? error.message : String(error));
  } catch {
    return "an error that could not be described";
  }
}

/** Never throws. `apiUrl` is SLACK_API_URL or DISCORD_API_URL when set; another surface (the console) gets the error's own words. */
export function describeStartError(surface: string, error: unknown, apiUrl?: string): StartFailure {
  if (!isChatSurface(surface)) return { cause: messageOf(error), fix: "Run with LOG_LEVEL=debug to see the details.", retryable: false };
  const { url, token } = PLATFORM[surface];
  const host = hostOf(surface, apiUrl);
  // discord.js's REST client aborts a request at its timeout; nothing else aborts a start.
  const network = field(error, "name") === "AbortError" ? ({ kind: "timeout" } as const) : networkCause(error);
  if (network) {
    const where = network.kind === "dns" && network.host ? network.host : host;
    if (network.kind === "timeout")
      return { cause: `${where} did not answer in time`, fix: `Check the network or ${url}.`, retryable: true };
    if (network.kind === "tls")
      return {
        cause: `could not reach ${where} (${networkCausePhrase(network)})`,
        fix: `Check ${url}, or give a proxy's certificate authority in NODE_EXTRA_CA_CERTS.`,
        retryable: false,
      };
    return { cause: `could not reach ${where} (${networkCausePhrase(network)})`, fix: `Check the network or ${url}.`, retryable: true };
  }
  const status = statusOf(error);
  if (status !== undefined) {
    const answered = `${host} answered ${status}${STATUS_TEXT[status] ? ` ${STATUS_TEXT[status]}` : ""}`;
    if (status === 401 || status === 403) return { cause: answered, fix: `Check ${token}, and ${url} if it is set.`, retryable: false };
    if (status === 404)
      return {
        cause: answered,
        fix: surface === "slack" ? `Check ${url} (it ends in /api/).` : `Check ${url} (the REST API's base, without /v10).`,
        retryable: false,
      };
    if (status === 429) return { cause: answered, fix: "Wait a minute before starting again.", retryable: true };
    if (status >= 500) return { cause: `${answered}: it is failing`, fix: "Start again in a few minutes.", retryable: true };
    return { cause: answered, fix: `Check ${url}.`, retryable: false };
  }
  const code = surface === "slack" ? slackCodeOf(error) : undefined;
  if (code)
    return {
      cause: `Slack answered "${code}"`,
      fix:
        code === "not_allowed_token_type" || code === "invalid_auth"
          ? "Check SLACK_APP_TOKEN: an app-level token (xapp-) with the connections:write scope."
          : "Check the app's tokens and scopes in the Slack app settings.",
      retryable: false,
    };
  return { cause: messageOf(error), fix: "Run with LOG_LEVEL=debug to see the details.", retryable: false };
}

/** `Cannot start slack: could not reach slack.com (DNS lookup failed: ENOTFOUND). Check the network or SLACK_API_URL.` */
export function startFailureLine(surface: string, failure: StartFailure): string {
  return `Cannot start ${surface}: ${failure.cause}. ${failure.fix}`.trimEnd();
}

/** Logs a surface's failed start (the stack only at LOG_LEVEL=debug: the line says it all) and returns the line to print. */
export function surfaceStartFailure(surface: string, reason: unknown, config: Config, logger: Logger): string {
  const described = describeStartError(surface, reason, isChatSurface(surface) ? config[surface]?.apiUrl : undefined);
  const debugStack = logger.isLevelEnabled("debug") ? { err: reason } : {};
  logger.error({ surface, cause: described.cause, retryable: described.retryable, ...debugStack }, "a surface failed to start");
  return startFailureLine(surface, described);
}
