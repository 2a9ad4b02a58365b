// A private note with a link (a Connect link) on Discord: its caption above the link's button
// (buttons.ts); where the link can't be a button, its text, which writes the link out.
import type { NoteLink } from "../../runs/api/presenting.js";
import { linkButtons } from "./buttons.js";
import type { OutgoingMessage } from "./channel-api.js";

export function noteMessage(text: string, link: NoteLink | undefined): OutgoingMessage {
  const buttons = link && linkButtons(link.label, link.url);
  return buttons ? { content: link.caption, components: buttons } : { content: text };
}
