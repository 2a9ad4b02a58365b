// Every sentence the core says, once for all surfaces, written in each surface's own form
// through its TextFormat (mentions, escaping, code). Pure.
import type { Decision, PendingApproval, Person } from "../../contracts/types.js";
import type { Deciders } from "../../governance/authority.js";
import type { FeedbackEntry, FeedbackTotals } from "../../memory/feedback.js";
import type { Fact } from "../../memory/types.js";
import type { Forgotten } from "../../runs/api/agent-service.js";
import type { StopResult } from "../../runs/api/decision-request.js";
import type { PrivateNote } from "./private-note.js";
import type { TextFormat } from "./surface.js";

export const RESTARTING_CLICK = "I am restarting right now; please click again in a moment.";
export const RESTARTING_COMMAND = "I am restarting right now; please ask again in a moment.";
export const BAD_BUTTON = "I could not read this button; it may come from an older version of the bot. Ask me again to get a fresh one.";
/** Public, so it says nothing about who is refused or why. */
/** What a scheduled run that showed its work says when it had nothing to report (`[SILENT]`): its progress is not left working. */
export const NOTHING_TO_REPORT = "Nothing to report this time.";
export const REFUSED_IN_PUBLIC = "Sorry, I can't take this request here.";
export const PRIVATE_ELSEWHERE = "I could not show that to you privately here; ask me in a direct message.";
export const STORAGE_TROUBLE = "Sorry, I could not handle that just now (my storage did not answer). Please try again in a moment.";
export const DECISION_FAILED = "Sorry, I could not record your decision just now. Please click again in a moment.";
export const STOP_FAILED = "I could not stop the run just now; please click Stop again in a moment.";
export const FEEDBACK_FAILED = "I could not record that just now; please try again in a moment.";
export const THANKS = "Thanks for the feedback.";
/** Ends a message a process that died mid-answer left half written; the answer follows it. */
export const INTERRUPTED_ANSWER = "(interrupted, answered again below)";

/** Shown in public, so it carries no internal detail: that goes to the log. */
export const RUN_FAILED =
  "Sorry, something went wrong on my side and I could not finish; the details are in the bot's log. Please ask again.";
export const EXPIRED_LINE = "Expired: nobody decided in time, so it did not run.";

export const ONLY_APPROVERS_FEEDBACK = "Only approvers and admins can see the feedback.";
export const ONLY_ADMINS_USAGE = "Only the bot's admins can see usage and cost.";
export const ONLY_ADMINS_FORGET = "Only the bot's admins can clear what I remember here.";

export function emptyQuestionText(askHint: string): string {
  return `Ask me something: ${askHint}`;
}

function listOf(names: readonly string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} or ${names.at(-1)!}`;
}

/** "Only <@requester>, <@approver> or members of <role> can decide." */
export function decidersText(requester: Person, deciders: Deciders, format: TextFormat): string {
  const people = [requester.id, ...deciders.users.filter((id) => id !== requester.id)].map((id) => format.person(id));
  return `Only ${listOf([...people, ...deciders.roles.map((role) => `members of ${format.role(role)}`)])} can decide.`;
}

export function decisionLine(decision: Decision, by: Person, format: TextFormat): string {
  return `${decision === "approve" ? "Approved" : "Denied"} by ${format.person(by.id)}.`;
}

export function notAllowedText(requester: Person, deciders: Deciders, format: TextFormat): string {
  return `You can't decide this one. ${decidersText(requester, deciders, format)}`;
}

export function alreadyDecidedText(decision: Decision, by: Person, format: TextFormat): string {
  return `This was already ${decision === "approve" ? "approved" : "denied"} by ${format.person(by.id)}.`;
}

/** Undefined when the run is stopping: the run's own messages show it. */
export function stopRefusalText(result: StopResult, format: TextFormat): string | undefined {
  switch (result.kind) {
    case "stopping":
      return undefined;
    case "not_allowed":
      return `Only ${format.person(result.requester.id)} or an approver can stop this run.`;
    case "not_running":
      return "This run is not running any more.";
  }
}

/** Within one message: facts that do not fit are counted. */
export function memoryText(facts: readonly Fact[], format: TextFormat): string {
  if (facts.length === 0) return "I don't remember anything about this conversation yet.";
  const lines = [`What I remember about this conversation (${facts.length}):`];
  let used = lines[0]!.length;
  for (const [index, fact] of facts.entries()) {
    const line = `• ${format.plain(fact.text.replace(/\s+/g, " ").trim())}`;
    const more = `…and ${facts.length - index} more.`;
    if (used + line.length + more.length + 2 > format.maxChars) {
      lines.push(more);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return lines.join("\n");
}

export function forgetText(forgotten: Forgotten): string {
  const { facts, turns, files } = forgotten;
  if (facts === 0 && turns === 0 && files === 0) return "There was nothing to forget about this conversation.";
  const counted = (count: number, one: string) => `${count} ${one}${count === 1 ? "" : "s"}`;
  const parts = [
    facts > 0 ? counted(facts, "fact") : "",
    turns > 0 ? `${counted(turns, "earlier turn")}` : "",
    files > 0 ? counted(files, "file") : "",
  ];
  const what = parts.filter(Boolean);
  const listed = what.length === 1 ? what[0] : `${what.slice(0, -1).join(", ")} and ${what.at(-1)}`;
  return `Done: I forgot ${listed} ${turns > 0 ? "of" : "about"} this conversation.`;
}

const COMMENT_SHOWN_CHARS = 200;

function feedbackLine(entry: FeedbackEntry, format: TextFormat): string {
  const where = entry.link ? format.link(entry.link, "thread") : format.plain(entry.conversationKey);
  const how = entry.guard === "none" ? "answered" : `stopped (${format.plain(entry.guard)})`;
  const comment = entry.comment ? ` — “${format.plain(entry.comment.slice(0, COMMENT_SHOWN_CHARS))}”` : "";
  const when = new Date(entry.at).toISOString().slice(0, 16).replace("T", " ");
  return `• ${entry.rating === "up" ? "👍" : "👎"} ${format.person(entry.person.id)} · ${where} · ${how} · ${when} UTC${comment}`;
}

/** The totals and the newest votes that fit in one message. */
export function feedbackText(totals: FeedbackTotals, entries: readonly FeedbackEntry[], format: TextFormat): string {
  const header = `Feedback so far: 👍 ${totals.up} · 👎 ${totals.down}.`;
  const lines: string[] = [];
  for (const line of entries.map((entry) => feedbackLine(entry, format))) {
    if ([header, ...lines, line].join("\n").length > format.maxChars) break;
    lines.push(line);
  }
  return lines.length === 0 ? `${header} No votes yet.` : [`${header} The last ${lines.length}:`, ...lines].join("\n");
}

/** A text cut at a line to fit one message, saying how many lines were left out. */
export function fitted(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const shown = text.slice(0, text.lastIndexOf("\n", maxChars - 20));
  return `${shown}\n… and ${text.slice(shown.length).split("\n").length - 1} more lines`;
}

/**
 * A run waits for its requester to connect an MCP server: the private link, written out (for
 * notifications and where buttons do not show) and as a button.
 */
export function connectNote(pending: PendingApproval): PrivateNote {
  const server = pending.connect?.server ?? "the server";
  const url = pending.connect?.url;
  if (!url) return { text: `Your request needs you to connect ${server}, but the link could not be made just now. Ask again in a moment.` };
  return {
    text: `Connect ${server}: ${url}\nSign in there as yourself (the link is yours alone and lasts 10 minutes); your request goes on by itself once you are connected.`,
    link: {
      label: `Connect ${server}`,
      url,
      caption: `Your request needs you to connect ${server}. Sign in as yourself with the button (the link is yours alone and lasts 10 minutes); your request goes on by itself once you are connected.`,
    },
  };
}

/** Said in the channel when the link could not be sent privately: it names no link. */
export function connectInPublic(pending: PendingApproval): string {
  return `A request here needs its asker to connect ${pending.connect?.server ?? "a server"}, and I could not send them the link privately.`;
}
