// The texts of the `settings` and `audit` commands, as pure functions. Links are written in
// the surface's own form (Slack `<url|text>`, Discord/console `[text](url)`).
import type { AuditEntry } from "./audit-log.js";
import type { RunSettings } from "./channel-settings.js";
import type { Allowance } from "./limits.js";
import { resetText } from "./refusal-text.js";

export type LinkStyle = "slack" | "markdown" | "plain";

const KIND_WORD: Record<AuditEntry["kind"], string> = {
  approval_requested: "approval asked",
  approval_decided: "decided",
  approval_expired: "approval expired",
  write_executed: "write ran",
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
};

function link(url: string | undefined, text: string, style: LinkStyle): string {
  if (!url) return text;
  if (style === "slack") return `<${url}|${text}>`;
  if (style === "markdown") return `[${text}](${url})`;
  return `${text} ${url}`;
}

const who = (person: { id: string; name?: string }) => person.name ?? person.id;

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

export function auditLine(entry: AuditEntry, style: LinkStyle): string {
  const when = new Date(entry.at).toISOString().replace("T", " ").slice(0, 19);
  const detail = entry.schedule
    ? scheduleDetail(entry.schedule, entry.requester)
    : entry.kind === "approval_decided"
      ? `${entry.decision === "approve" ? "approved" : "denied"} by ${who(entry.decidedBy ?? { id: "?" })}`
      : entry.kind === "write_executed"
        ? `outcome ${entry.outcome ?? "?"}`
        : entry.kind === "fact_deleted"
          ? `by ${who(entry.requester)}: ${entry.result ?? "?"}`
          : `asked by ${who(entry.requester)}`;
  const tool = entry.tool ? ` ${entry.tool}` : "";
  return `${when} UTC · ${KIND_WORD[entry.kind]}${tool} · ${detail} · run ${entry.runId} · ${entry.process.hostname}/${entry.process.pid} · ${link(entry.link, "thread", style)}`;
}

export function auditText(entries: readonly AuditEntry[], style: LinkStyle): string {
  if (entries.length === 0) return "The audit log is empty: no approvals or writes yet.";
  return [
    `Latest ${entries.length} audit ${entries.length === 1 ? "entry" : "entries"} (newest first):`,
    ...entries.map((entry) => `• ${auditLine(entry, style)}`),
  ].join("\n");
}

export function settingsText(options: {
  run: RunSettings;
  defaultModel: string;
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
    `• model: ${run.model ?? options.defaultModel}`,
    `• tools: ${tools}`,
    `• steps per run: ${run.maxSteps ?? "the default (AGENT_MAX_STEPS)"}`,
    `• memory: ${run.memory ? "on" : "off"}`,
    `• persona: ${run.systemPrompt ? "set for this channel" : "none"}`,
    `• limits: ${limits}`,
  ].join("\n");
}
