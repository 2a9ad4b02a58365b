// How the core's cards read on Discord, as pure functions. Mentions written here render as
// names but ping nobody: every message goes out with allowed mentions empty (NO_PINGS).
import { shorten } from "../../contracts/trace-text.js";
import type { CallOutcome, PendingApproval, RunOutcome } from "../../contracts/types.js";
import type { Deciders } from "../../governance/authority.js";
import type { SettledCard, StatusCard } from "../core/cards.js";
import type { TextFormat } from "../core/surface.js";
import { decidersText, decisionLine, EXPIRED_LINE } from "../core/texts.js";
import { originNotes } from "../core/origin-lines.js";

export const MAX_MESSAGE_CHARS = 2000;

/** discord.js form; the REST form is NO_PINGS_API. */
export const NO_PINGS = { parse: [], repliedUser: false } as const;
export const NO_PINGS_API = { parse: [], replied_user: false } as const;

const OUTCOME_WORD: Record<CallOutcome, string> = {
  ok: "done",
  error: "failed",
  invalid_args: "got bad arguments",
  unknown_tool: "is not a tool",
  timeout: "timed out",
  repeated: "was a repeat, skipped",
  denied: "was denied",
  needs_approval: "needs approval",
  blocked: "was not run",
};

/** Inline code that cannot be broken out of, on one line. */
const code = (text: string, max = 60) => `\`${shorten(text.replace(/`/g, "'"), max)}\``;

export function truncate(text: string, max: number = MAX_MESSAGE_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** How the core writes on Discord: mentions as <@id> (pinging nobody: NO_PINGS), code that cannot be broken out of. */
export const discordFormat: TextFormat = {
  plain: (text) => text,
  person: (id) => `<@${id}>`,
  role: (id) => `<@&${id}>`,
  code: (text) => code(text, 100),
  block: (text) => `\`\`\`\n${text.replaceAll("`", "'")}\n\`\`\``,
  link: (url) => url,
  // Discord shows Markdown as the model writes it, and pings nobody (NO_PINGS).
  answer: (text) => text,
  maxChars: MAX_MESSAGE_CHARS,
};

export const WORKING_TEXT = "⏳ Working on it…";

/** The progress message for a status. */
export function progressText(status: StatusCard): string {
  switch (status.kind) {
    case "working":
      return WORKING_TEXT;
    case "thinking":
      return `⏳ Working… step ${status.step}`;
    case "running":
      return `⏳ Step ${status.step}: running ${code(status.tool)}…${status.detail ? ` ${status.detail.slice(0, 200)}` : ""}`;
    case "ran":
      return `⏳ Step ${status.step}: ${code(status.tool)} ${OUTCOME_WORD[status.outcome]}`;
    case "tidying":
      return "⏳ Tidying up my notes…";
    case "summarising":
      return "⏳ Wrapping up…";
    case "waiting":
      return "⏳ Waiting for approval…";
    case "asking":
      return `⏳ Step ${status.step}: waiting for an answer to the form of ${code(status.server)}…`;
  }
}

/** The reply: the answer, and when a guard stopped the run, one line naming it. */
export function answerText(outcome: Pick<Extract<RunOutcome, { status: "answered" }>, "answer" | "stop">): string {
  const answer = outcome.answer.trim() === "" ? "(No answer came back.)" : outcome.answer.trim();
  return outcome.stop ? `${answer}\n\n⚠️ ${outcome.stop.sentence}` : answer;
}

export function waitingText(pending: PendingApproval): string {
  if (pending.connect)
    return `⏸️ Waiting for <@${pending.requester.id}> to connect ${code(pending.connect.server)} (the link was sent to them privately).`;
  return `⏸️ Waiting for approval to run ${code(pending.tool)} (see the message below).`;
}

const ARGS_PREVIEW_CHARS = 1_400;
/** The arguments keep at least this much of their preview beside the origin lines. */
const ARGS_MIN_PREVIEW_CHARS = 400;

/** The warning and origin lines, as a quote under the card's first line. */
function originText(pending: PendingApproval): string[] {
  const notes = originNotes(pending);
  if (!notes) return [];
  return [`> ⚠️ **${notes.warning}**`, ...notes.lines.map((line) => `> - ${line}`)];
}

export function approvalText(pending: PendingApproval, deciders: Deciders): string {
  const origins = originText(pending);
  // The origin lines (bounded) come before the arguments, whose preview gives them room within one message.
  const room = Math.max(ARGS_MIN_PREVIEW_CHARS, ARGS_PREVIEW_CHARS - origins.join("\n").length);
  const json = JSON.stringify(pending.args, null, 2) ?? "null";
  const preview = truncate(json, room).replace(/```/g, "`\u200b``");
  const expires = Math.floor(pending.expiresAt / 1000);
  return truncate(
    [
      `🔐 <@${pending.requester.id}>'s request wants to run ${code(pending.tool)}:`,
      ...(pending.source ? [`From ${code(pending.source, 300)}`] : []),
      ...origins,
      "```json",
      preview,
      "```",
      `${decidersText(pending.requester, deciders, discordFormat)} Expires <t:${expires}:R>.`,
    ].join("\n"),
  );
}

export function settledLine(card: SettledCard): string {
  if (card.kind === "expired") return `⌛ ${EXPIRED_LINE}`;
  return `${card.decision === "approve" ? "✅" : "❌"} ${decisionLine(card.decision, card.by, discordFormat)}`;
}

/** The approval message with a closing line added (once), kept within one message. */
export function withClosingLine(content: string, line: string): string {
  const suffix = `\n\n${line}`;
  if (content.endsWith(suffix)) return content;
  return `${truncate(content, MAX_MESSAGE_CHARS - suffix.length)}${suffix}`;
}

const THREAD_NAME_CHARS = 90;

export function threadName(question: string): string {
  const flat = question.replace(/\s+/g, " ").trim();
  return truncate(`Trace: ${flat === "" ? "request" : flat}`, THREAD_NAME_CHARS);
}
