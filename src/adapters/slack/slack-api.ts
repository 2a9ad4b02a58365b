// Reading what Slack answers: @slack/web-api's errors without depending on its classes (platform
// errors carry `data.error`, e.g. "not_in_channel", HTTP errors a status code), lists in pages
// joined by a cursor, and the JSON values the bot's buttons and forms carry.
import type { webApi } from "@slack/bolt";
import { z } from "zod";

export const THREAD_PAGE_SIZE = 200;

const PlatformError = z.object({ data: z.object({ error: z.string() }) });
const HttpError = z.object({ statusCode: z.number() });
const RateLimited = z.object({ code: z.literal("slack_webapi_rate_limited_error") });
const Page = z.object({
  messages: z.array(z.unknown()).default([]),
  members: z.array(z.string()).default([]),
  response_metadata: z.object({ next_cursor: z.string().optional() }).optional(),
});

/** What conversations.info says of a conversation's kind. */
export const ChannelInfo = z.object({
  channel: z.object({
    is_private: z.boolean().optional(),
    is_im: z.boolean().optional(),
    is_mpim: z.boolean().optional(),
    context_team_id: z.string().optional(),
  }),
});

/** A public channel of workspace `team`: anyone of it may read it (not a DM, a group DM, or a channel shared from elsewhere). */
export const isPublicIn = (info: z.infer<typeof ChannelInfo>["channel"], team: string | undefined): boolean =>
  info.is_private === false && !info.is_im && !info.is_mpim && (info.context_team_id ?? team) === team;

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

/** A JSON value Slack hands back as we wrote it (a button's value, a form's metadata): untrusted, so checked against `schema`. */
export function jsonValue<T>(schema: z.ZodType<T>, text: unknown): T | undefined {
  if (typeof text !== "string") return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A 429 the client did not wait out (a write client rejects rate-limited calls instead of repeating them). */
export const isRateLimited = (error: unknown): boolean => RateLimited.safeParse(error).success;

export type ListPage = z.infer<typeof Page>;

/** A message as Slack lists it (history, replies). */
const Listed = z.object({
  ts: z.string(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().default(""),
  reply_count: z.number().optional(),
});

/** The entries of a listing (untrusted) that are messages; anything else is left out. */
export const messagesIn = (listing: readonly unknown[]): z.infer<typeof Listed>[] =>
  listing.flatMap((entry) => {
    const parsed = Listed.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });

/**
 * Slack lists a thread oldest first, so it is read page by page, up to `latest` when given (bounded), with the messages'
 * metadata when `metadata` is set; `whole` false: it stopped at the bound.
 */
export async function readThread(
  client: webApi.WebClient,
  thread: { readonly channel: string; readonly ts: string; readonly latest?: string; readonly metadata?: true },
  maxPages: number,
): Promise<{ readonly messages: unknown[]; readonly whole: boolean }> {
  const messages: unknown[] = [];
  const { channel, ts, latest } = thread;
  const before = latest === undefined ? {} : { latest, inclusive: false };
  const metadata = thread.metadata ? { include_all_metadata: true } : {};
  const whole = await readPages(
    (page) => client.conversations.replies({ channel, ts, ...before, ...metadata, limit: THREAD_PAGE_SIZE, ...page }),
    (page) => void messages.push(...page.messages),
    maxPages,
  );
  return { messages, whole };
}

/**
 * Reads a list page by page, at most `maxPages`, until `take` says it has what it needs (true)
 * or the list ends. Resolves whether it reached that point (false: it stopped at the bound).
 */
export async function readPages(
  fetch: (cursor: { cursor?: string }) => Promise<unknown>,
  take: (page: ListPage) => boolean | undefined,
  maxPages: number,
): Promise<boolean> {
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page += 1) {
    const parsed = Page.parse(await fetch(cursor ? { cursor } : {}));
    if (take(parsed) === true) return true;
    cursor = parsed.response_metadata?.next_cursor;
    if (!cursor) return true;
  }
  return false;
}
