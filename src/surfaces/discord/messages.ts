// Every text the bot shows on Discord, as pure functions. Mentions written here render as
// names but ping nobody: every message goes out with allowed mentions empty (NO_PINGS).
import type { Fact } from "../../memory/types.js";
import type { AgentEvent, CallOutcome, Decision, PendingApproval, Person, RunOutcome } from "../../agent/types.js";

export const MAX_MESSAGE_CHARS = 2000;

/** discord.js form; the REST form is NO_PINGS_API. */
export const NO_PINGS = { parse: [], repliedUser: false } as const;
export const NO_PINGS_API = { parse: [], replied_user: false } as const;

export interface Deciders {
  readonly approvers: readonly string[];
  readonly approverRole?: string;
}

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

/** Inline code that cannot be broken out of. */
function code(text: string, max = 60): string {
  const flat = text.replace(/`/g, "'").replace(/\s+/g, " ").trim();
  return `\`${flat.length > max ? `${flat.slice(0, max - 1)}…` : flat}\``;
}

function mention(person: Person | string): string {
  return `<@${typeof person === "string" ? person : person.id}>`;
}

export function truncate(text: string, max: number = MAX_MESSAGE_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export const WORKING_TEXT = "⏳ Working on it…";

/** The status line for a progress event, or undefined when the event changes nothing a person cares about. */
export function progressText(event: AgentEvent): string | undefined {
  switch (event.type) {
    case "step_started":
      return `⏳ Working… step ${event.step}`;
    case "tool_called":
      return `⏳ Step ${event.step}: running ${code(event.call.name)}…`;
    case "tool_progress":
      return `⏳ Step ${event.step}: running ${code(event.call.name)}… ${event.detail.slice(0, 200)}`;
    case "tool_result":
      return `⏳ Step ${event.step}: ${code(event.call.tool)} ${OUTCOME_WORD[event.call.outcome]}`;
    case "guard_tripped":
      return "⏳ Wrapping up…";
    default:
      return undefined;
  }
}

/** The reply: the answer, and when a guard stopped the run, one line naming it. */
export function answerText(outcome: Extract<RunOutcome, { status: "answered" }>): string {
  const answer = outcome.answer.trim() === "" ? "(No answer came back.)" : outcome.answer.trim();
  return outcome.stop ? `${answer}\n\n⚠️ ${outcome.stop.sentence}` : answer;
}

export function waitingText(pending: PendingApproval): string {
  return `⏸️ Waiting for approval to run ${code(pending.tool)} (see the message below).`;
}

export function decidersText(requester: Person, deciders: Deciders): string {
  const people = [requester.id, ...deciders.approvers.filter((id) => id !== requester.id)].map(mention);
  const all = deciders.approverRole ? [...people, `members of <@&${deciders.approverRole}>`] : people;
  const list = all.length === 1 ? all[0]! : `${all.slice(0, -1).join(", ")} or ${all.at(-1)!}`;
  return `Only ${list} can decide.`;
}

const ARGS_PREVIEW_CHARS = 1_400;

export function approvalText(pending: PendingApproval, deciders: Deciders): string {
  const json = JSON.stringify(pending.args, null, 2) ?? "null";
  const preview = truncate(json, ARGS_PREVIEW_CHARS).replace(/```/g, "`\u200b``");
  const expires = Math.floor(pending.expiresAt / 1000);
  return truncate(
    [
      `🔐 ${mention(pending.requester)}'s request wants to run ${code(pending.tool)}:`,
      ...(pending.source ? [`From ${code(pending.source, 300)}`] : []),
      "```json",
      preview,
      "```",
      `${decidersText(pending.requester, deciders)} Expires <t:${expires}:R>.`,
    ].join("\n"),
  );
}

export function decisionLine(decision: Decision, by: Person): string {
  return decision === "approve" ? `✅ Approved by ${mention(by)}` : `❌ Denied by ${mention(by)}`;
}

export const EXPIRED_LINE = "⌛ Expired: nobody decided in time, so it did not run.";

/** The approval message with a closing line added (once), kept within one message. */
export function withClosingLine(content: string, line: string): string {
  const suffix = `\n\n${line}`;
  if (content.endsWith(suffix)) return content;
  return `${truncate(content, MAX_MESSAGE_CHARS - suffix.length)}${suffix}`;
}

export function notAllowedText(requester: Person, deciders: Deciders): string {
  return truncate(`You can't decide this one. ${decidersText(requester, deciders)}`);
}

export function alreadyDecidedText(decision: Decision, by: Person): string {
  return `Already decided: ${decision === "approve" ? "approved" : "denied"} by ${mention(by)}.`;
}

export const BAD_BUTTON_TEXT = "That button is not one I know; it may come from an older version of the bot.";

export const EMPTY_QUESTION_TEXT = "Ask me something: mention me with a question, or use `/ask question:`.";

/** Shown in public, so it carries no internal detail: that goes to the log. */
export const FAILURE_TEXT = "⚠️ Something went wrong on my side; the details are in the bot's log. Please try again.";

export function memoryText(facts: readonly Fact[]): string {
  if (facts.length === 0) return "I don't remember anything about this conversation yet.";
  const header = `What I remember about this conversation (${facts.length}):`;
  const lines: string[] = [header];
  let used = header.length;
  for (const [index, fact] of facts.entries()) {
    const line = `• ${fact.text.replace(/\s+/g, " ").trim()}`;
    const more = `…and ${facts.length - index} more.`;
    if (used + line.length + more.length + 2 > MAX_MESSAGE_CHARS) {
      lines.push(more);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return lines.join("\n");
}

export function forgetText(removed: number): string {
  if (removed === 0) return "There was nothing to forget about this conversation.";
  return `Forgot ${removed} ${removed === 1 ? "thing" : "things"} about this conversation.`;
}

const THREAD_NAME_CHARS = 90;

export function threadName(question: string): string {
  const flat = question.replace(/\s+/g, " ").trim();
  return truncate(`Trace: ${flat === "" ? "request" : flat}`, THREAD_NAME_CHARS);
}
