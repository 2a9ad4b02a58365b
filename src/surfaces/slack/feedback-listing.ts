// `@bot feedback` for approvers: the totals and the last 20 votes, each with a link to its
// thread, shown only to the person who asked. Comments are people's words: neutralised.
import type { FeedbackEntry, FeedbackTotals } from "../../memory/feedback.js";
import type { IncomingMessage } from "./incoming-message.js";
import { neutraliseMentions } from "./neutralise-mentions.js";
import { tellPrivately } from "./private-note.js";
import type { SlackRuntime } from "./slack-runtime.js";
import { escapeSlackText } from "./slack-text.js";

export const FEEDBACK_SHOWN = 20;
const COMMENT_SHOWN_CHARS = 200;

function entryLine(entry: FeedbackEntry): string {
  const thumb = entry.rating === "up" ? "👍" : "👎";
  const where = entry.link ? `<${entry.link}|thread>` : escapeSlackText(entry.conversationKey);
  const how = entry.guard === "none" ? "answered" : `stopped (${escapeSlackText(entry.guard)})`;
  const comment = entry.comment ? ` — “${escapeSlackText(neutraliseMentions(entry.comment.slice(0, COMMENT_SHOWN_CHARS)))}”` : "";
  return `• ${thumb} <@${entry.person.id}> · ${where} · ${how} · ${new Date(entry.at).toISOString().slice(0, 16).replace("T", " ")} UTC${comment}`;
}

/** Pure: the listing's text. */
export function feedbackText(totals: FeedbackTotals, entries: readonly FeedbackEntry[]): string {
  const header = `Feedback so far: 👍 ${totals.up} · 👎 ${totals.down}.`;
  if (entries.length === 0) return `${header} No votes yet.`;
  return `${header} The last ${entries.length}:\n${entries.map(entryLine).join("\n")}`;
}

/** Never throws. */
export async function showFeedback(runtime: SlackRuntime, message: IncomingMessage): Promise<void> {
  const { channel, requester, replyThreadTs } = message.place;
  const note = { channel, user: requester, ...(replyThreadTs ? { threadTs: replyThreadTs } : {}) };
  if (!runtime.approvers.includes(requester)) return tellPrivately(runtime, note, "Only approvers can see the feedback.");
  try {
    const [totals, entries] = await Promise.all([runtime.service.feedback.totals(), runtime.service.feedback.recent(FEEDBACK_SHOWN)]);
    await tellPrivately(runtime, note, feedbackText(totals, entries));
  } catch (error) {
    runtime.logger.error({ err: error }, "could not read the feedback");
    await tellPrivately(runtime, note, "I could not read the feedback just now (my storage did not answer).");
  }
}
