// Reading the explorer's query strings: the runs filters (shared by the page and the API) and a
// usage range. A date without a time means the whole day: `until=2026-12-01` includes that day.
import { z } from "zod";
import { RunQuerySchema, type RunQuery } from "../../memory/run-records/record-index.js";

const DAY_MS = 24 * 60 * 60_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const RUN_FILTERS = ["surface", "workspace", "channel", "user", "outcome", "guard", "since", "until", "q", "limit", "cursor"] as const;

export type QueryParse<T> = { readonly kind: "ok"; readonly query: T } | { readonly kind: "invalid"; readonly message: string };

function problem(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${issue.path.join(".") || "query"}: ${issue.message}`;
}

/** The runs filters of a query string; empty fields are no filter. */
export function runQueryOf(params: URLSearchParams): QueryParse<RunQuery> {
  const fields: Record<string, string> = {};
  for (const name of RUN_FILTERS) {
    const value = params.get(name)?.trim();
    if (value) fields[name] = value;
  }
  const parsed = RunQuerySchema.safeParse(fields);
  if (!parsed.success) return { kind: "invalid", message: problem(parsed.error) };
  const query = parsed.data;
  return {
    kind: "ok",
    query:
      fields.until && DATE_ONLY.test(fields.until) && query.until !== undefined ? { ...query, until: query.until + DAY_MS - 1 } : query,
  };
}

export interface UsageRange {
  readonly since: number;
  readonly until: number;
  /** One workspace's usage only (`<surface>:<id>`, as the report names workspaces). */
  readonly workspace?: string;
}

const Workspace = z
  .string()
  .max(300)
  .regex(/^(slack|discord):[^:\s]+$/, "expects <surface>:<id>, e.g. slack:T0123 or discord:1234");

const Day = z
  .string()
  .regex(DATE_ONLY, "expects a date like 2026-12-01")
  .refine((value) => Number.isFinite(Date.parse(value)), "expects a real date");

/** `since` and `until` as days (default: the last 30 days up to today), at most 400 days apart; `workspace` when given. */
export function usageRangeOf(params: URLSearchParams, now: number): QueryParse<UsageRange> {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const since = params.get("since")?.trim() || undefined;
  const until = params.get("until")?.trim() || undefined;
  const workspace = params.get("workspace")?.trim() || undefined;
  const parsed = z
    .object({ since: Day.optional(), until: Day.optional(), workspace: Workspace.optional() })
    .safeParse({ since, until, workspace });
  if (!parsed.success) return { kind: "invalid", message: problem(parsed.error) };
  const end = parsed.data.until ? Date.parse(parsed.data.until) : today;
  const start = parsed.data.since ? Date.parse(parsed.data.since) : end - 29 * DAY_MS;
  if (start > end) return { kind: "invalid", message: "since: expects a day on or before until" };
  if (end - start > 399 * DAY_MS) return { kind: "invalid", message: "since: the counters keep 400 days; ask for at most that many" };
  return { kind: "ok", query: { since: start, until: end + DAY_MS - 1, ...(workspace ? { workspace } : {}) } };
}
