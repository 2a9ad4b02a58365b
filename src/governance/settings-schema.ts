// The settings file (BOT_SETTINGS): who may use the bot where, limits, and per-channel
// settings. Everything in it is untrusted input: it is checked here, field by field, and a
// problem is reported as one line naming its path.
import { z } from "zod";

const ids = z.array(z.string().trim().min(1, "expects ids, not empty strings")).default([]);
const count = z.number({ error: "expects a whole number" }).int("expects a whole number").positive("expects a number above 0");
const glob = z.string().trim().min(1, "expects a tool name or glob like mcp_*");

const PeopleAndPlaces = z.strictObject({ users: ids, roles: ids, channels: ids });

const Access = z.strictObject({
  /** Per surface; admins may use the bot anywhere, see the audit log, and approve and stop anyone's runs. */
  admins: z.strictObject({ slack: ids, discord: ids, console: ids }).default({ slack: [], discord: [], console: [] }),
  allow: PeopleAndPlaces.default({ users: [], roles: [], channels: [] }),
  block: PeopleAndPlaces.default({ users: [], roles: [], channels: [] }),
  dms: z.boolean({ error: "expects true or false" }).default(true),
  /** Who may wipe a conversation's remembered facts: anyone allowed there, or only admins. */
  forget: z.enum(["anyone", "admins"], { error: 'expects "anyone" or "admins"' }).default("anyone"),
});

const Limit = z.strictObject({ runsPerMinute: count.optional(), tokensPerDay: count.optional() });

const Limits = z.strictObject({
  user: Limit.default({}),
  channel: Limit.default({}),
  /** Admins are exempt from limits unless this is set; then it applies to them instead of `user`. */
  admins: Limit.optional(),
});

const ChannelSettings = z.strictObject({
  /** Appended to the system prompt: the channel's persona. */
  systemPrompt: z.string().max(8_000, "expects at most 8000 characters").optional(),
  model: z.string().trim().min(1, "expects a model name").optional(),
  tools: z.strictObject({ allow: z.array(glob).optional(), deny: z.array(glob).default([]) }).optional(),
  maxSteps: count.max(100, "expects at most 100").optional(),
  memory: z.enum(["on", "off"], { error: 'expects "on" or "off"' }).optional(),
  /** false: attachments are ignored here (the run gets a note naming each), nothing is downloaded. */
  files: z.boolean({ error: "expects true or false" }).optional(),
  /** `on`: a reply in a thread the bot works in is for it without a mention; `mention`: only a mention is. */
  threadFollowUps: z.enum(["on", "mention"], { error: 'expects "on" or "mention"' }).optional(),
  /** What a person's message does while a run of the same conversation is in flight (CONCURRENT_MESSAGES here). */
  concurrentMessages: z.enum(["queue", "steer", "interrupt"], { error: 'expects "queue", "steer" or "interrupt"' }).optional(),
  /** Overrides of the SCHEDULE_* variables in this channel; `enabled: false` refuses new schedules and their slots here. */
  schedules: z
    .strictObject({
      enabled: z.boolean({ error: "expects true or false" }).optional(),
      maxPerUser: count.max(1_000, "expects at most 1000").optional(),
      maxPerChannel: count.max(10_000, "expects at most 10000").optional(),
      minIntervalMinutes: count.max(1_440, "expects at most 1440").optional(),
    })
    .optional(),
});

const perMillion = z.number({ error: "expects dollars per million tokens" }).finite().nonnegative().max(10_000, "expects at most 10000");

/** One model endpoint (`<model>@<base URL>`, as MODEL_FALLBACKS names it): read at start. */
const ModelEndpointSettings = z.strictObject({
  /** The environment variable holding this endpoint's key (never the key itself); OPENAI_API_KEY otherwise. */
  apiKeyVariable: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expects the name of an environment variable (e.g. EU_OPENAI_KEY), never the key itself")
    .optional(),
  /** Its context window in tokens, where the model table would guess wrong. */
  contextTokens: count.min(1_024, "expects at least 1024").max(10_000_000, "expects at most 10000000").optional(),
  /** Dollars per million tokens at this endpoint, over MODEL_PRICES for its model. */
  prices: z.strictObject({ input: perMillion, cached: perMillion.optional(), output: perMillion }).optional(),
});

/**
 * One workspace's own section (a Slack workspace, a Discord server), over the global one: each field
 * it sets replaces the global field in that workspace (workspace-settings.ts).
 */
const WorkspaceSettings = z.strictObject({
  access: z
    .strictObject({
      /** This workspace's admins (its own user ids); none named here: the global admins of its surface. */
      admins: z.array(z.string().trim().min(1, "expects ids, not empty strings")).optional(),
      allow: PeopleAndPlaces.optional(),
      block: PeopleAndPlaces.optional(),
      dms: z.boolean({ error: "expects true or false" }).optional(),
      forget: z.enum(["anyone", "admins"], { error: 'expects "anyone" or "admins"' }).optional(),
    })
    .default({}),
  /** The workspace's budgets: runs per minute and tokens per day, counted in this workspace only. */
  limits: z.strictObject({ user: Limit.optional(), channel: Limit.optional(), admins: Limit.optional() }).default({}),
  /** Over the global entries of the same channel id (its `default` over the global `default`). */
  channels: z.record(z.string().min(1), ChannelSettings).default({}),
});

export const SettingsSchema = z.strictObject({
  access: Access.default(Access.parse({})),
  limits: Limits.default(Limits.parse({})),
  /** Keyed by channel id; `default` applies where a channel has no entry of its own (and under it). */
  channels: z.record(z.string().min(1), ChannelSettings).default({}),
  /** Keyed by workspace id (a Slack team id `T…`, a Discord server id): a workspace's own settings over the ones above. */
  workspaces: z.record(z.string().trim().min(1, "expects a workspace id"), WorkspaceSettings).default({}),
  /** Keyed by endpoint, `<model>@<base URL>` as MODEL_FALLBACKS writes it; read when the process starts. */
  models: z
    .record(z.string().regex(/^.+@https?:\/\/\S+$/, "expects <model>@<base URL> as MODEL_FALLBACKS writes it"), ModelEndpointSettings)
    .default({}),
});

export type Settings = z.infer<typeof SettingsSchema>;
export type ChannelSettings = z.infer<typeof ChannelSettings>;
export type LimitSettings = z.infer<typeof Limit>;
export type ScheduleOverrides = NonNullable<ChannelSettings["schedules"]>;
export type ModelEndpointSettings = z.infer<typeof ModelEndpointSettings>;
export type WorkspaceSettings = z.infer<typeof WorkspaceSettings>;

/** Everything allowed, no limits, no channel settings: what runs when there is no settings file. */
export const OPEN_SETTINGS: Settings = SettingsSchema.parse({});

export type SettingsCheck =
  | { readonly kind: "ok"; readonly settings: Settings }
  | { readonly kind: "invalid"; readonly problems: readonly string[] };

/** One line per problem, each naming the field: `limits.user.runsPerMinute: expects a whole number`. */
export function checkSettings(data: unknown): SettingsCheck {
  const parsed = SettingsSchema.safeParse(data);
  if (parsed.success) return { kind: "ok", settings: parsed.data };
  return {
    kind: "invalid",
    problems: parsed.error.issues.map((issue) => {
      const path = issue.path.map(String).join(".");
      const message =
        issue.code === "unrecognized_keys"
          ? `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((key) => `"${key}"`).join(", ")}`
          : // A key refused by a record's key schema (a `models` entry's name) says why in its own issue.
            issue.code === "invalid_key"
            ? (issue.issues[0]?.message ?? issue.message)
            : issue.message;
      return path === "" ? message : `${path}: ${message}`;
    }),
  };
}
