// A link button on Slack (Block Kit's url button): a Connect link under a private note, or the page
// a server's form sends the person to. Slack refuses a button whose url passes 3,000 characters:
// such a link makes no button, and the note's text, which writes the link out, shows alone. A url
// button's click still comes to the app, which only acks it.
import type { NoteLink } from "../../runs/api/presenting.js";
import { slackFormat } from "./slack-text.js";

export const LINK_ACTION = "agent_link";
/** Slack's limits on a button's text and a url button's url. */
const BUTTON_TEXT_CHARS = 75;
const BUTTON_URL_CHARS = 3_000;
const SECTION_CHARS = 3_000;

/** A button's words, cut to what Slack takes. */
export const buttonText = (text: string) => ({ type: "plain_text" as const, text: text.slice(0, BUTTON_TEXT_CHARS), emoji: false });

/** Undefined when Slack would refuse the url. */
export function linkButton(label: string, url: string) {
  if (url.length > BUTTON_URL_CHARS) return undefined;
  return { type: "button" as const, action_id: LINK_ACTION, text: buttonText(label), url };
}

/** A private note's blocks: its caption above its button; undefined where the link can't be a button (the text stands alone). */
export function linkNoteBlocks(link: NoteLink) {
  const button = linkButton(link.label, link.url);
  if (!button) return undefined;
  return [
    { type: "section" as const, text: { type: "mrkdwn" as const, text: slackFormat.plain(link.caption).slice(0, SECTION_CHARS) } },
    { type: "actions" as const, block_id: "link", elements: [button] },
  ];
}
