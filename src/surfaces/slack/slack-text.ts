// Slack's `text` and mrkdwn fields treat &, < and > as markup; escaping them shows the
// characters as written and leaves no way to form a mention or a link.
import type { TextFormat } from "../core/surface.js";
import { neutraliseMentions } from "./neutralise-mentions.js";

export function escapeSlackText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Plain text shown verbatim in a code block (backtick runs cannot close it early). */
export function codeBlock(text: string): string {
  return `\`\`\`${escapeSlackText(text).replace(/```/g, "`\u200b``")}\`\`\``;
}

/** Slack advises messages under 4,000 characters (longer ones are cut); stay below. */
export const MESSAGE_MAX_CHARS = 3_900;

/** How the core writes on Slack: people's and models' words escaped and neutralised, mentions as <@id>. */
export const slackFormat: TextFormat = {
  plain: (text) => escapeSlackText(neutraliseMentions(text)),
  person: (id) => `<@${id}>`,
  role: () => "an approver group",
  code: (text) => `\`${escapeSlackText(text).replace(/`/g, "'")}\``,
  block: codeBlock,
  link: (url, label) => `<${url}|${escapeSlackText(label)}>`,
  maxChars: MESSAGE_MAX_CHARS,
};
