// Everything a run needs to continue later, in plain data: what a paused run stores while it
// waits for a person. The schema checks a stored copy before it is trusted again.
import { z } from "zod";
import type {
  AddedNote,
  CallRecord,
  ChatMessage,
  ModelSwitch,
  Person,
  RequestScope,
  StepRecord,
  Surface,
  TaskOrigin,
  TokenUsage,
  ToolCall,
} from "../../contracts/types.js";
import type { SourcedText } from "../../contracts/provenance.js";
import { BOUNDARY_PATTERN } from "../context/data-blocks.js";
import { SeenSourcesSchema } from "../context/seen-sources.js";
import { TextSourceSchema } from "../../memory/run-records/source-schema.js";
import type { RepeatState } from "../guards/repeat.js";

export interface GuardCounters {
  readonly repeat: RepeatState;
  /** Signatures of the latest calls, oldest first (bounded). */
  readonly recent: readonly string[];
  readonly errorStreak: number;
  /** What the model saw for the most recent call: replayed when it asks again. */
  readonly lastObservation?: string;
}

/** A step interrupted by a write that waits for approval. */
export interface PendingStep {
  readonly index: number;
  readonly startedAt: number;
  readonly text: string | null;
  /** The write call that waits, then the calls of the same reply that came after it. */
  readonly calls: readonly ToolCall[];
  /** Calls of this step already settled. */
  readonly done: readonly CallRecord[];
  readonly usage?: TokenUsage;
  /** The endpoint that answered the step's model call, and the moves before it (a model with fallbacks). */
  readonly endpoint?: string;
  readonly switches?: readonly ModelSwitch[];
  /** The call waits for the person to connect this MCP server, not for a decision. */
  readonly connect?: string;
}

export interface RunState {
  readonly version: 1;
  readonly runId: string;
  readonly origin: TaskOrigin;
  /** The person's message that started the run. */
  readonly question: string;
  readonly messages: readonly ChatMessage[];
  readonly steps: readonly StepRecord[];
  readonly guards: GuardCounters;
  readonly usage: TokenUsage;
  /** Run time used so far; time spent waiting for a person does not count. */
  readonly elapsedMs: number;
  readonly pending?: PendingStep;
  /**
   * The run's data-block boundary (context/data-blocks.ts). Absent in runs stored before text had
   * sources: such a run draws one when it is taken up again.
   */
  readonly boundary?: string;
  /** The intake ids of the messages the person added while the run worked: none is taken twice, also after a crash. */
  readonly taken?: readonly string[];
  /** Those added since the last step, for the next step's record. */
  readonly added?: readonly AddedNote[];
  /**
   * What the run read from others, with sources (context/seen-sources.ts, bounded): where a write's
   * arguments came from. Absent in runs stored before, and in a run that read nothing but its question.
   */
  readonly sources?: readonly SourcedText[];
}

const ToolCallSchema = z.object({ id: z.string().max(200), name: z.string().max(200), arguments: z.string() });
const UsageSchema = z.object({
  promptTokens: z.number().nonnegative(),
  completionTokens: z.number().nonnegative(),
  // Absent in runs stored before cached tokens were counted.
  cachedTokens: z.number().nonnegative().optional(),
});
// Absent in runs stored before endpoints failed over.
const EndpointSchema = z.string().max(2_000).optional();
const SwitchesSchema = z
  .array(z.object({ from: z.string().max(2_000), to: z.string().max(2_000), cause: z.string().max(2_000) }))
  .max(100)
  .readonly()
  .optional();
const FileInfoSchema = z.object({
  id: z.string().max(200),
  name: z.string().max(1_000),
  mime: z.string().max(200),
  size: z.number().int().nonnegative().optional(),
});
/** Bounded: an inline image is at most ~5 MB of bytes (src/files resizes to that); stored ones are references. */
const ImageSourceSchema = z.union([
  z.object({ data: z.string().max(7_000_000) }),
  z.object({ stored: z.object({ conversationKey: z.string(), fileId: z.string().max(200) }) }),
]);
const ContentPartSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({
    type: z.literal("image"),
    file: FileInfoSchema,
    mime: z.enum(["image/png", "image/jpeg", "image/gif", "image/webp"]),
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    source: ImageSourceSchema,
  }),
  z.object({
    type: z.literal("file"),
    file: FileInfoSchema,
    text: z.string(),
    status: z.enum([
      "read",
      "cut",
      "too_big",
      "too_many",
      "missing_scope",
      "expired_link",
      "failed_download",
      "off_platform_link",
      "unsupported_type",
      "unreadable",
      "no_vision",
      "files_off",
    ]),
  }),
]);
const AnswerFileSchema = z.object({
  id: z.string().max(200),
  name: z.string().max(1_000),
  mime: z.string().max(200),
  size: z.number().int(),
});
const MessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  // Today's records hold a string; a message that brought files holds parts.
  z.object({ role: z.literal("user"), content: z.union([z.string(), z.array(ContentPartSchema).max(200)]) }),
  z.object({ role: z.literal("assistant"), content: z.string().nullable(), toolCalls: z.array(ToolCallSchema).optional() }),
  z.object({ role: z.literal("tool"), toolCallId: z.string(), content: z.string() }),
]);
const CallRecordSchema = z.object({
  callId: z.string(),
  tool: z.string(),
  args: z.string(),
  signature: z.string(),
  outcome: z.enum(["ok", "error", "invalid_args", "unknown_tool", "timeout", "repeated", "denied", "needs_approval", "blocked"]),
  result: z.string(),
  observation: z.string(),
  // Kept as it was: a paused run's state is signed with its approval, and read back must be the same state.
  source: TextSourceSchema.optional(),
  durationMs: z.number().nonnegative(),
  files: z.array(AnswerFileSchema).max(100).readonly().optional(),
  forms: z
    .array(
      z.object({
        server: z.string(),
        kind: z.enum(["form", "url"]),
        action: z.enum(["accept", "decline", "cancel"]),
        reason: z.enum(["dismissed", "timeout", "stopped", "unavailable", "withdrawn"]).optional(),
        by: z.object({ id: z.string(), name: z.string().optional() }).optional(),
        waitedMs: z.number().nonnegative(),
      }),
    )
    .max(100)
    .readonly()
    .optional(),
});
const AddedNoteSchema = z.object({ kind: z.enum(["added", "edited"]), text: z.string() });
const StepRecordSchema = z.object({
  index: z.number().int().positive(),
  startedAt: z.number(),
  durationMs: z.number().nonnegative(),
  text: z.string().nullable(),
  calls: z.array(CallRecordSchema),
  usage: UsageSchema.optional(),
  endpoint: EndpointSchema,
  switches: SwitchesSchema,
  added: z.array(AddedNoteSchema).max(100).readonly().optional(),
});
/** Who asked or decided; shared with the approval records. */
export const PersonSchema = z.object({ id: z.string(), name: z.string().optional() }) satisfies z.ZodType<Person>;
export const SurfaceSchema = z.enum(["console", "slack", "discord"]) satisfies z.ZodType<Surface>;
export const ScopeSchema = z.object({
  channel: z.string().optional(),
  thread: z.string().optional(),
  dm: z.boolean(),
  workspace: z.string().optional(),
  roles: z.array(z.string()).readonly(),
  link: z.string().optional(),
  workspaceAdmin: z.literal(true).optional(),
}) satisfies z.ZodType<RequestScope>;

export const RunStateSchema = z.object({
  version: z.literal(1),
  runId: z.string().min(1).max(64),
  origin: z.object({
    surface: SurfaceSchema,
    conversationKey: z.string(),
    requester: PersonSchema,
    scope: ScopeSchema.optional(),
    place: z.record(z.string(), z.string()),
    schedule: z
      .object({
        scheduleId: z.string().min(1).max(64),
        slotAt: z.number(),
        firedAt: z.number(),
        late: z.boolean(),
        skipped: z.number().int().nonnegative().optional(),
        thread: z.enum(["per_slot", "origin"]),
        timeZone: z.string().optional(),
      })
      .optional(),
  }),
  question: z.string(),
  messages: z.array(MessageSchema),
  steps: z.array(StepRecordSchema),
  guards: z.object({
    repeat: z.object({ lastSignature: z.string().optional(), streak: z.number().int().nonnegative() }),
    recent: z.array(z.string()),
    errorStreak: z.number().int().nonnegative(),
    lastObservation: z.string().optional(),
  }),
  usage: UsageSchema,
  elapsedMs: z.number().nonnegative(),
  pending: z
    .object({
      index: z.number().int().positive(),
      startedAt: z.number(),
      text: z.string().nullable(),
      calls: z.array(ToolCallSchema).min(1),
      done: z.array(CallRecordSchema),
      usage: UsageSchema.optional(),
      endpoint: EndpointSchema,
      switches: SwitchesSchema,
      connect: z.string().optional(),
    })
    .optional(),
  boundary: z.string().regex(BOUNDARY_PATTERN).optional(),
  taken: z.array(z.string().max(64)).max(1_000).readonly().optional(),
  added: z.array(AddedNoteSchema).max(100).readonly().optional(),
  sources: SeenSourcesSchema.optional(),
}) satisfies z.ZodType<RunState>;

export const emptyGuardCounters: GuardCounters = { repeat: { streak: 0 }, recent: [], errorStreak: 0 };
