// Where run records live in the store, and how a filtered page of them is found among 100,000:
// each summary is listed in a few ordered indexes (all runs, its surface, workspace, channel,
// person, outcome, guard, conversation), newest first by start; a query walks the narrowest index
// its filters allow and checks the rest on the summaries, a bounded number per page.
import { z } from "zod";
import type { IndexHit } from "../types.js";
import { isInWorkspace } from "../workspace-conversations.js";
import { OUTCOMES, type RunSummary } from "./record-schema.js";

export const recordKey = (runId: string) => `runs:record:${runId}`;
export const summaryKey = (runId: string) => `runs:summary:${runId}`;
export const ALL_RUNS = "runs:idx:all";
/** Conversations by their latest run (for the explorer's Conversations page). */
export const CONVERSATIONS = "runs:conversations";
export const conversationIndex = (conversationKey: string) => `runs:idx:k:${conversationKey}`;

const workspaceIndex = (surface: string, workspace: string) => `runs:idx:w:${surface}:${workspace}`;

export function indexesOf(
  summary: Pick<RunSummary, "surface" | "workspace" | "channel" | "requester" | "outcome" | "guard" | "conversationKey">,
): string[] {
  return [
    ALL_RUNS,
    `runs:idx:s:${summary.surface}`,
    ...(summary.workspace ? [workspaceIndex(summary.surface, summary.workspace)] : []),
    `runs:idx:c:${summary.channel}`,
    `runs:idx:u:${summary.requester.id}`,
    `runs:idx:o:${summary.outcome}`,
    ...(summary.guard ? [`runs:idx:g:${summary.guard}`] : []),
    conversationIndex(summary.conversationKey),
  ];
}

const text = z.string().trim().min(1).max(300);
/** Epoch ms, or an ISO date / date-time. */
const instant = z.union([
  z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number),
  z
    .string()
    .transform((value) => Date.parse(value))
    .refine(Number.isFinite, "expects a date (2026-12-01 or 2026-12-01T10:00Z) or epoch milliseconds"),
]);

/** `<surface>:<id>` (`slack:T0123`, `discord:1234`), as the usage report names workspaces. */
const workspace = z
  .string()
  .trim()
  .max(300)
  .regex(/^(slack|discord):[^:\s]+$/, "expects <surface>:<id>, e.g. slack:T0123 or discord:1234")
  .transform((value) => {
    const colon = value.indexOf(":");
    return { surface: value.slice(0, colon), id: value.slice(colon + 1) };
  });

export const RunQuerySchema = z.object({
  surface: z.enum(["console", "slack", "discord"]).optional(),
  workspace: workspace.optional(),
  channel: text.optional(),
  user: text.optional(),
  outcome: z.enum(OUTCOMES).optional(),
  guard: text.optional(),
  since: instant.optional(),
  until: instant.optional(),
  q: text.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(600).optional(),
});
export type RunQuery = z.infer<typeof RunQuerySchema>;
export type RunQueryInput = z.input<typeof RunQuerySchema>;

const CursorSchema = z.tuple([z.number().finite(), z.string().max(300)]);

export function encodeCursor(hit: IndexHit): string {
  return Buffer.from(JSON.stringify([hit.score, hit.member])).toString("base64url");
}

/** undefined for a cursor that is not one of ours. */
export function decodeCursor(cursor: string): IndexHit | undefined {
  try {
    const parsed = CursorSchema.safeParse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
    return parsed.success ? { score: parsed.data[0], member: parsed.data[1] } : undefined;
  } catch {
    return undefined;
  }
}

/** The narrowest index the filters name: a person's runs are fewer than a channel's, a guard's fewer than an outcome's. */
export function indexFor(query: RunQuery): string {
  if (query.user) return `runs:idx:u:${query.user}`;
  if (query.channel) return `runs:idx:c:${query.channel}`;
  if (query.guard) return `runs:idx:g:${query.guard}`;
  if (query.workspace) return workspaceIndex(query.workspace.surface, query.workspace.id);
  if (query.outcome) return `runs:idx:o:${query.outcome}`;
  if (query.surface) return `runs:idx:s:${query.surface}`;
  return ALL_RUNS;
}

export function matches(summary: RunSummary, query: RunQuery): boolean {
  if (query.surface && summary.surface !== query.surface) return false;
  // By its conversation, which names its workspace: summaries of an earlier version (without `workspace`) match too.
  if (query.workspace && !isInWorkspace(summary.conversationKey, query.workspace.surface, query.workspace.id)) return false;
  if (query.channel && summary.channel !== query.channel) return false;
  if (query.user && summary.requester.id !== query.user) return false;
  if (query.outcome && summary.outcome !== query.outcome) return false;
  if (query.guard && summary.guard !== query.guard) return false;
  if (query.q && !summary.question.toLowerCase().includes(query.q.toLowerCase())) return false;
  return true;
}
