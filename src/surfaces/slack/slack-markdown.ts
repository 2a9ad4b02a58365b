// Models are asked for Slack mrkdwn but often write standard Markdown anyway. The common
// constructs become their mrkdwn look-alikes (bold, strike, links, headings); code spans and
// fenced blocks are left as written. Crowd mentions are neutralised everywhere. Pure.
import { neutraliseMentions } from "./neutralise-mentions.js";

const CODE = /(```[\s\S]*?```|`[^`\n]+`)/g;

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
