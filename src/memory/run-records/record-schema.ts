// What a run record holds: one finished run (or one paused on an approval) with its settings,
// steps, calls, guard notes, approvals and writes, and the summary row the explorer lists.
// Stored records are untrusted: every read goes through these schemas.
import { z } from "zod";
import { TextSourceSchema } from "./source-schema.js";

const count = z.number().int().nonnegative();
const Person = z.object({ id: z.string(), name: z.string().optional() });
const ToolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.string() });

export const UsageSchema = z.object({ prompt: count, completion: count, cached: count });
export type RecordUsage = z.infer<typeof UsageSchema>;
export const NO_USAGE: RecordUsage = { prompt: 0, completion: 0, cached: 0 };

const MessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({ role: z.literal("assistant"), content: z.string().nullable(), toolCalls: z.array(ToolCallSchema).readonly().optional() }),
  z.object({ role: z.literal("tool"), toolCallId: z.string(), content: z.string() }),
]);

export const ToolSpecSchema = z.object({
  name: z.string(),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
  effect: z.enum(["read", "write"]),
  /** What the tool policy said for it when the run started. */
  policy: z.enum(["approve", "allow", "deny"]),
  /** The provider's own policy layer (an MCP server's `approval` setting). */
  approval: z.enum(["approve", "allow"]).optional(),
  server: z.string().optional(),
});
export type ToolSpec = z.infer<typeof ToolSpecSchema>;

export const SettingsSchema = z.object({
  model: z.string(),
  maxSteps: count,
  maxConsecutiveErrors: count,
  oscillationWindow: count,
  contextWindow: count,
  reservedOutputTokens: count,
  /** The cap a tool result was cut to before the model read it. */
  observationTokens: count,
  runTimeoutMs: count,
  approvalTimeoutMs: count,
  /** The channel's own instructions (the settings file), when it has some. */
  persona: z.string().optional(),
  tools: z.array(ToolSpecSchema),
});
export type RecordSettings = z.infer<typeof SettingsSchema>;

export const CALL_OUTCOMES = [
  "ok",
  "error",
  "invalid_args",
  "unknown_tool",
  "timeout",
  "repeated",
  "denied",
  "needs_approval",
  "blocked",
] as const;

const CallSchema = z.object({
  callId: z.string(),
  tool: z.string(),
  args: z.string(),
  signature: z.string(),
  outcome: z.enum(CALL_OUTCOMES),
  /** The full result as the trace holds it, unless `cut`. */
  result: z.string(),
  resultLength: count,
  cut: z.boolean().optional(),
  /** Where the result's text came from; absent for a call that did not run, and in records stored before provenance. */
  source: TextSourceSchema.optional(),
  durationMs: z.number().nonnegative(),
});
export type RecordCall = z.infer<typeof CallSchema>;

/** A step's model call moved from one endpoint (`<model>@<base URL>`) to another, and why. */
const SwitchSchema = z.object({ from: z.string(), to: z.string(), cause: z.string() });

const StepSchema = z.object({
  index: z.number().int().positive(),
  startedAt: z.number(),
  durationMs: z.number().nonnegative(),
  /** The model call's share of the step. */
  modelMs: z.number().nonnegative().optional(),
  usage: UsageSchema.optional(),
  /** The endpoint that answered (a model with fallbacks); absent in records of runs that had none, and older ones. */
  endpoint: z.string().optional(),
  /** The moves before that endpoint answered, oldest first. */
  switches: z.array(SwitchSchema).optional(),
  text: z.string().nullable(),
  /** The calls as the model asked for them (ids as the run used them). */
  toolCalls: z.array(ToolCallSchema),
  calls: z.array(CallSchema),
});
export type RecordStep = z.infer<typeof StepSchema>;

const NoteSchema = z.object({
  /** `form`: a call's server asked the requester (a form or a link) and how it ended. */
  kind: z.enum(["warned", "tripped", "folded", "compacted", "form"]),
  step: count,
  guard: z.string().optional(),
  detail: z.string(),
});
export type RecordNote = z.infer<typeof NoteSchema>;

const ApprovalSchema = z.object({
  callId: z.string(),
  tool: z.string(),
  args: z.string(),
  requestedAt: z.number(),
  expiresAt: z.number(),
  decision: z.enum(["approve", "deny", "expired"]).optional(),
  decidedBy: Person.optional(),
  decidedAt: z.number().optional(),
});
export type RecordApproval = z.infer<typeof ApprovalSchema>;

export const OUTCOMES = ["answered", "stopped", "paused", "failed", "guard"] as const;
export type RecordOutcome = (typeof OUTCOMES)[number];

export const RunRecordSchema = z.object({
  version: z.literal(1),
  runId: z.string().min(1),
  surface: z.enum(["console", "slack", "discord"]),
  conversationKey: z.string(),
  channel: z.string(),
  workspace: z.string().optional(),
  /** Where the conversation is on its platform (http(s) only). */
  link: z.string().optional(),
  requester: Person,
  /** "full" keeps every text; "metadata" keeps none (RUN_RECORD_CONTENT). */
  content: z.enum(["full", "metadata"]),
  question: z.string(),
  questionLength: count,
  startedAt: z.number(),
  endedAt: z.number(),
  settings: SettingsSchema,
  /** The run's first model request (messages; the tools are in settings), kept for replay and the prefix measure. */
  firstRequest: z.array(MessageSchema).readonly().optional(),
  steps: z.array(StepSchema),
  notes: z.array(NoteSchema),
  approvals: z.array(ApprovalSchema),
  /** The files people attached: each one's name and what became of it ("(text/plain, 2 KB): read (text)", or why it was not used). */
  files: z.array(z.object({ name: z.string(), outcome: z.string() })).optional(),
  status: z.enum(["answered", "paused", "failed"]),
  outcome: z.enum(OUTCOMES),
  stop: z.object({ guard: z.string(), detail: z.string(), sentence: z.string() }).optional(),
  answer: z.string().optional(),
  failure: z.string().optional(),
  /** Every model call of the run so far: steps, compaction, summary. */
  usage: UsageSchema,
  /** Tokens this run's earlier part (before a pause) already added to the usage counters. */
  counted: UsageSchema,
  /** Tokens of the first request, and how many of them begin exactly as the conversation's previous run's first request. */
  prefix: z.object({ shared: count, total: count }).optional(),
  /** Its first part ran in a process that stopped before it was recorded: steps before that are missing. */
  partial: z.boolean(),
  /** Something was cut to fit RUN_RECORD_MAX_BYTES. */
  cut: z.boolean(),
  /** 👍 / 👎 per person. */
  votes: z.record(z.string(), z.enum(["up", "down"])),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

export const RunSummarySchema = z.object({
  runId: z.string().min(1),
  surface: z.enum(["console", "slack", "discord"]),
  conversationKey: z.string(),
  channel: z.string(),
  /** The Slack workspace or Discord server (absent in the console, a DM, and summaries an earlier version wrote). */
  workspace: z.string().optional(),
  requester: Person,
  /** Its start, for the list and the text filter. */
  question: z.string(),
  startedAt: z.number(),
  durationMs: z.number().nonnegative(),
  outcome: z.enum(OUTCOMES),
  guard: z.string().optional(),
  steps: count,
  model: z.string(),
  usage: UsageSchema,
  /** Of `usage`, the steps' by the endpoint that answered them, when the run's model had fallbacks (the cost is priced per endpoint). */
  endpoints: z.record(z.string(), UsageSchema).optional(),
  votes: z.record(z.string(), z.enum(["up", "down"])),
  /** Writes a person denied during the run (absent: none, or a summary an earlier version wrote). */
  denied: count.optional(),
  /** The indexes it is listed in, so removing it reaches each one. */
  indexes: z.array(z.string()),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

export const SUMMARY_QUESTION_CHARS = 300;

export const totalTokens = (usage: RecordUsage) => usage.prompt + usage.completion;

export const addRecordUsage = (sum: RecordUsage, more: RecordUsage | undefined): RecordUsage =>
  more ? { prompt: sum.prompt + more.prompt, completion: sum.completion + more.completion, cached: sum.cached + more.cached } : sum;

/** A record as its cost reads it: its model, its tokens, and the steps' by the endpoint that answered them. */
export function pricedRunOf(record: RunRecord): { model: string; usage: RecordUsage; endpoints?: Record<string, RecordUsage> } {
  const endpoints = usageByEndpoint(record.steps);
  return { model: record.settings.model, usage: record.usage, ...(endpoints ? { endpoints } : {}) };
}

/** The steps' tokens by the endpoint that answered them; undefined when no step names one. */
export function usageByEndpoint(steps: readonly RecordStep[]): Record<string, RecordUsage> | undefined {
  const answered = steps.filter((step) => step.endpoint !== undefined);
  if (answered.length === 0) return undefined;
  const sums: Record<string, RecordUsage> = {};
  for (const step of answered) sums[step.endpoint!] = addRecordUsage(sums[step.endpoint!] ?? NO_USAGE, step.usage);
  return sums;
}
