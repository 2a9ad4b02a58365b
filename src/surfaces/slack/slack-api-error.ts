// Reading errors thrown by @slack/web-api without depending on its classes: platform errors
// carry `data.error` (e.g. "not_in_channel"), HTTP errors a status code.
import { z } from "zod";

const PlatformError = z.object({ data: z.object({ error: z.string() }) });
const HttpError = z.object({ statusCode: z.number() });

/** The Slack error code of an `ok: false` answer, if that is what failed. */
export function slackErrorCode(error: unknown): string | undefined {
  const parsed = PlatformError.safeParse(error);
  return parsed.success ? parsed.data.data.error : undefined;
}

/** One short line for logs and for the model. */
export function describeSlackError(error: unknown): string {
  const code = slackErrorCode(error);
  if (code) return `Slack answered "${code}"`;
  const http = HttpError.safeParse(error);
  if (http.success) return `Slack answered HTTP ${http.data.statusCode}`;
  return error instanceof Error ? error.message : String(error);
}

const RateLimited = z.object({ code: z.literal("slack_webapi_rate_limited_error") });

/** A 429 the client did not wait out (a write client rejects rate-limited calls instead of repeating them). */
export const isRateLimited = (error: unknown): boolean => RateLimited.safeParse(error).success;
