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
};

/** Where the entry's conversation can be opened, when the place says enough. */
export function threadUrl(entry: Pick<AuditEntry, "surface" | "place">): string | undefined {
  const { place } = entry;
  if (entry.surface === "slack" && place.team && place.channel) {
    const ts = place.reply_thread_ts ?? place.thread_ts;
    return ts
      ? `https://app.slack.com/client/${place.team}/${place.channel}/thread/${place.channel}-${ts}`
      : `https://app.slack.com/client/${place.team}/${place.channel}`;
  }
  if (entry.surface === "discord" && place.channel)
    return `https://discord.com/channels/${place.guild ?? "@me"}/${place.channel}${place.message ? `/${place.message}` : ""}`;
  return undefined;
}

function link(url: string | undefined, text: string, style: LinkStyle): string {
  if (!url) return text;
  if (style === "slack") return `<${url}|${text}>`;
  if (style === "markdown") return `[${text}](${url})`;
  return `${text} ${url}`;
}

const who = (person: { id: string; name?: string }) => person.name ?? person.id;

export function auditLine(entry: AuditEntry, style: LinkStyle): string {
  const when = new Date(entry.at).toISOString().replace("T", " ").slice(0, 19);
  const detail =
    entry.kind === "approval_decided"
      ? `${entry.decision === "approve" ? "approved" : "denied"} by ${who(entry.decidedBy ?? { id: "?" })}`
      : entry.kind === "write_executed"
        ? `outcome ${entry.outcome ?? "?"}`
        : `asked by ${who(entry.requester)}`;
  const tool = entry.tool ? ` ${entry.tool}` : "";
  return `${when} UTC · ${KIND_WORD[entry.kind]}${tool} · ${detail} · run ${entry.runId} · ${entry.process.hostname}/${entry.process.pid} · ${link(threadUrl(entry), "thread", style)}`;
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
    `• files: ${run.files ? "read" : "off (attachments are not read here)"}`,
    `• persona: ${run.systemPrompt ? "set for this channel" : "none"}`,
    `• limits: ${limits}`,
  ].join("\n");
}
