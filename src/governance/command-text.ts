// The texts of the `settings` and `audit` commands, as pure functions. Links are written in
// the surface's own form (Slack `<url|text>`, Discord/console `[text](url)`).
import type { AuditEntry } from "./audit-log.js";
import type { ConcurrentMessages, RunSettings } from "./channel-settings.js";
import type { Allowance } from "./limits.js";
import { resetText } from "./refusal-text.js";
import { DEFAULT_SETTINGS_FILE } from "./settings-file.js";

export type LinkStyle = "slack" | "markdown" | "plain";

const KIND_WORD: Record<AuditEntry["kind"], string> = {
  approval_requested: "approval asked",
  approval_decided: "decided",
  approval_expired: "approval expired",
  decision_refused: "decision refused",
  write_executed: "write ran",
  form_answered: "form answered",
  schedule_created: "schedule made",
  schedule_changed: "schedule changed",
  schedule_paused: "schedule paused",
  schedule_resumed: "schedule resumed",
  schedule_cancelled: "schedule cancelled",
  slot_late: "slot ran late",
  slot_skipped: "slots skipped",
  slot_silent: "slot silent",
  slot_refused: "slot refused",
  fact_deleted: "fact deleted",
  question_edited: "question edited",
  question_deleted: "question deleted",
  workspace_removed: "workspace removed",
  untrusted_write_warned: "write from untrusted content",
  untrusted_write_refused: "write refused (untrusted content)",
  answer_held: "answer held",
};

function link(url: string | undefined, text: string, style: LinkStyle): string {
  if (!url) return text;
  if (style === "slack") return `<${url}|${text}>`;
  if (style === "markdown") return `[${text}](${url})`;
  return `${text} ${url}`;
}

/** The name and the id the settings file lists people by, e.g. `Ana (U0ANA)`, `root (console)`; the id alone when that is all there is. */
const who = (person: { id: string; name?: string }) =>
  person.name && person.name !== person.id ? `${person.name} (${person.id})` : person.id;

const utc = (at: number) => new Date(at).toISOString().replace("T", " ").slice(0, 16);

/** `sch_ab12cd34 of Ana · slot 2027-01-18 08:00 UTC · by the bot · failed 3 slots in a row` */
function scheduleDetail(schedule: NonNullable<AuditEntry["schedule"]>, owner: AuditEntry["requester"]): string {
  return [
    `${schedule.id} of ${who(owner)}`,
    ...(schedule.slotAt === undefined ? [] : [`slot ${utc(schedule.slotAt)} UTC`]),
    ...(schedule.firedAt === undefined ? [] : [`fired ${utc(schedule.firedAt)} UTC`]),
    ...(schedule.skipped === undefined ? [] : [`${schedule.skipped} skipped`]),
    schedule.by ? `by ${who(schedule.by)}` : "by the bot",
    ...(schedule.reason ? [schedule.reason] : []),
  ].join(" · ");
}

const CANCELLED: Readonly<Record<string, string>> = {
  timeout: "not answered in time",
  stopped: "its run was stopped",
  unavailable: "the bot restarted",
  withdrawn: "withdrawn by the server",
};

/** `form of docs: sent by Ana (U0ANA)`, `form of docs: cancelled (not answered in time)`, `page of wiki: shown to Ana (U0ANA)`. */
function formDetail(form: NonNullable<AuditEntry["form"]>, by: AuditEntry["decidedBy"]): string {
  const what = `${form.kind === "url" ? "page" : "form"} of ${form.server}`;
  if (form.kind === "url") return `${what}: shown to ${by ? who(by) : "its requester"}`;
  const byWhom = by ? ` by ${who(by)}` : "";
  if (form.action === "accept") return `${what}: sent${byWhom}`;
  if (form.action === "decline") return `${what}: declined${byWhom}`;
  if (form.reason === undefined || form.reason === "dismissed") return `${what}: dismissed${byWhom}`;
  return `${what}: cancelled (${CANCELLED[form.reason] ?? form.reason})`;
}

/** What an entry says besides its kind, tool, run and process. */
function entryDetail(entry: AuditEntry): string {
  if (entry.schedule) return scheduleDetail(entry.schedule, entry.requester);
  const decider = who(entry.decidedBy ?? { id: "?" });
  switch (entry.kind) {
    case "approval_decided":
      return `${entry.decision === "approve" ? "approved" : "denied"} by ${decider}`;
    case "decision_refused":
      return `${entry.decision ?? "?"} by ${decider}: ${entry.reason ?? "?"}`;
    case "write_executed":
      return `outcome ${entry.outcome ?? "?"}`;
    case "fact_deleted":
      return `by ${who(entry.requester)}: ${entry.result ?? "?"}`;
    case "question_edited":
    case "question_deleted":
      return `by ${who(entry.requester)}: ${entry.reason ?? "?"}`;
    case "workspace_removed":
      return entry.reason ?? "?";
    case "form_answered":
      return entry.form ? formDetail(entry.form, entry.decidedBy) : "?";
    default:
      return `asked by ${who(entry.requester)}`;
  }
}

/** Whether the entry's run id is a run's; a schedule's own entries (made, paused, cancelled) carry the schedule's id there. */
export function namesARun(entry: Pick<AuditEntry, "runId" | "schedule">): boolean {
  return entry.runId !== "" && entry.runId !== entry.schedule?.id;
}

export function auditLine(entry: AuditEntry, style: LinkStyle): string {
  const when = new Date(entry.at).toISOString().replace("T", " ").slice(0, 19);
  const tool = entry.tool ? ` ${entry.tool}` : "";
  const subject =
    entry.kind === "workspace_removed" ? `workspace ${entry.runId}` : namesARun(entry) ? `run ${entry.runId}` : `schedule ${entry.runId}`;
  // Where the platform gave no link (the console, an entry without one), there is nothing to follow: no bare "thread".
  const thread = entry.link ? ` · ${link(entry.link, "thread", style)}` : "";
  return `${when} UTC · ${KIND_WORD[entry.kind]}${tool} · ${entryDetail(entry)} · ${subject} · ${entry.process.hostname}/${entry.process.pid}${thread}`;
}

/** Who may see the audit log, and how `userId` becomes one of them. `settingsFile`: the file in force, if any. */
export function auditRefusalText(surface: string, userId: string, settingsFile: string | undefined): string {
  const where = settingsFile ?? `a settings file (${DEFAULT_SETTINGS_FILE} in the working directory, or the one BOT_SETTINGS names)`;
  return `Only the bot's admins can see the audit log. An admin adds your id "${userId}" to access.admins.${surface} in ${where}.`;
}

export function auditText(entries: readonly AuditEntry[], style: LinkStyle): string {
  if (entries.length === 0) return "The audit log is empty: no approvals or writes yet.";
  return [
    `Latest ${entries.length} audit ${entries.length === 1 ? "entry" : "entries"} (newest first):`,
    ...entries.map((entry) => `• ${auditLine(entry, style)}`),
  ].join("\n");
}

/** The offline demo model answers every channel, whatever model the settings name. */
export const DEMO_MODEL_TEXT = "the offline demo model (arithmetic and time only; set OPENAI_API_KEY for a real one)";

export function settingsText(options: {
  run: RunSettings;
  /** The model's name (OPENAI_MODEL), or DEMO_MODEL_TEXT. */
  defaultModel: string;
  /** Whether the offline demo model answers, so a channel's own model is not used. */
  demo: boolean;
  /** AGENT_MAX_STEPS. */
  defaultMaxSteps: number;
  /** CONCURRENT_MESSAGES. */
  defaultConcurrentMessages: ConcurrentMessages;
  allowances: readonly Allowance[] | undefined;
  admin: boolean;
  now: number;
}): string {
  const { run } = options;
  const tools =
    run.toolRules.allow.length === 0 && run.toolRules.deny.length === 0
      ? "all tools (subject to TOOL_POLICY)"
      : [
          ...run.toolRules.allow.map((list) => `only ${list.join(", ")}`),
          ...(run.toolRules.deny.length > 0 ? [`never ${run.toolRules.deny.join(", ")}`] : []),
        ].join("; ");
  const limits =
    options.allowances === undefined
      ? "could not be read just now"
      : options.allowances.length === 0
        ? options.admin
          ? "none for you (admin)"
          : "none"
        : options.allowances
            .map(
              (item) =>
                `${item.scope === "user" ? "you" : "this channel"}: ${item.left.toLocaleString("en-US")} of ${item.max.toLocaleString("en-US")} ${item.limit === "runs" ? "requests this minute" : "tokens today"} left (resets ${resetText(item.resetsAt, options.now)})`,
            )
            .join("; ");
  return [
    "Settings here:",
    `• model: ${options.demo || run.model === undefined ? options.defaultModel : run.model}`,
    `• tools: ${tools}`,
    `• steps per run: ${run.maxSteps ?? `${options.defaultMaxSteps} (AGENT_MAX_STEPS; this channel sets none of its own)`}`,
    `• memory: ${run.memory ? "on" : "off"}`,
    `• files: ${run.files ? "read" : "off (attachments are not read here)"}`,
    `• persona: ${run.systemPrompt ? "set for this channel" : "none"}`,
    `• replies in a thread: ${run.threadFollowUps ? "answered without a mention, once the bot works there" : "answered only with a mention"}`,
    `• a message while a run works: ${run.concurrentMessages ?? `${options.defaultConcurrentMessages} (CONCURRENT_MESSAGES)`}`,
    `• limits: ${limits}`,
  ].join("\n");
}
