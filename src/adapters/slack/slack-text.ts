// Writing safely in Slack. Its `text` and mrkdwn fields treat &, < and > as markup: escaping
// them shows the characters as written and leaves no way to form a mention or a link. Text the
// model wrote never pings a crowd: Slack's special mentions (<!here>, <!channel>, <!everyone>,
// <!subteam^…>) become plain look-alikes, and bare @here / @channel / @everyone get an invisible
// word joiner so no client links them (dates, <!date^…>, are harmless and kept; <@U…> names one
// person, not a crowd). Models are asked for mrkdwn but often write standard Markdown: its common
// constructs become their mrkdwn look-alikes, code left as written. Pure.
import type { TextFormat } from "../core/surface.js";

const WORD_JOINER = "\u2060";
const SPECIAL_MENTION = /<!([^<>|]*)(?:\|([^<>]*))?>/g;
const BARE_CROWD = /@(here|channel|everyone)\b/gi;
const CODE = /(```[\s\S]*?```|`[^`\n]+`)/g;

/** Slack advises messages under 4,000 characters (longer ones are cut); stay below. */
export const MESSAGE_MAX_CHARS = 3_900;

export function escapeSlackText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Plain text shown verbatim in a code block (backtick runs cannot close it early). */
export function codeBlock(text: string): string {
  return `\`\`\`${escapeSlackText(text).replace(/```/g, "`\u200b``")}\`\`\``;
}

function plainLabel(command: string, label: string | undefined): string {
  if (label !== undefined && label.trim() !== "") return label.startsWith("@") ? label : `@${label}`;
  return command.startsWith("subteam^") ? "@group" : `@${command}`;
}

/** Idempotent. The result contains no special mention Slack would notify on. */
export function neutraliseMentions(text: string): string {
  let current = text;
  for (;;) {
    const next = current.replace(SPECIAL_MENTION, (whole: string, command: string, label: string | undefined) =>
      command.startsWith("date^") ? whole : plainLabel(command, label),
    );
    if (next === current) return current.replace(BARE_CROWD, `@${WORD_JOINER}$1`);
    current = next;
  }
}

function convertProse(text: string): string {
  return text
    .replace(/\*\*(?=\S)([^*\n]+?)\*\*/g, "*$1*")
    .replace(/__(?=\S)([^_\n]+?)__/g, "*$1*")
    .replace(/~~(?=\S)([^~\n]+?)~~/g, "~$1~")
    .replace(/!?\[([^\]\n]+)\]\((https?:\/\/[^)\s|>]+)\)/g, "<$2|$1>")
    .replace(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm, "*$1*");
}

/** Slack mrkdwn for the model's text: safe to post as a message's `text`. */
export function toSlackMrkdwn(text: string): string {
  const parts = text.split(CODE);
  return neutraliseMentions(parts.map((part, index) => (index % 2 === 1 ? part : convertProse(part))).join(""));
}

/** How the core writes on Slack: people's and models' words escaped and neutralised, mentions as <@id>. */
export const slackFormat: TextFormat = {
  plain: (text) => escapeSlackText(neutraliseMentions(text)),
  person: (id) => `<@${id}>`,
  role: () => "an approver group",
  code: (text) => `\`${escapeSlackText(text).replace(/`/g, "'")}\``,
  block: codeBlock,
  link: (url, label) => `<${url}|${escapeSlackText(label)}>`,
  answer: toSlackMrkdwn,
  maxChars: MESSAGE_MAX_CHARS,
};
