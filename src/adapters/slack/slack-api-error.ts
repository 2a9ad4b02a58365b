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

/** Codes that say the app or workspace lacks a method or feature: trying again later will not help. */
const MISSING_FEATURE_ERRORS = new Set([
  "not_allowed",
  "not_allowed_token_type",
  "missing_scope",
  "no_permission",
  "unknown_method",
  "method_deprecated",
  "feature_not_enabled",
  "team_not_enabled",
]);

/** True for an `ok: false` answer that means the feature is missing (not a passing failure such as internal_error). */
export function isMissingFeature(error: unknown): boolean {
  const code = slackErrorCode(error);
  return code !== undefined && (MISSING_FEATURE_ERRORS.has(code) || code.endsWith("_not_enabled"));
}
