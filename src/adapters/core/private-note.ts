// Telling one person something only they should see, the same way on every surface: the
// platform's private message where they are (ephemeral), else a direct message from the bot,
// else (only when the caller gives one) a public reply that names no details. A note with a link
// shows it as a button where the platform can (the text writes it out for everywhere else).
// Never throws.
import type { Logger } from "../../logger.js";
import type { NoteLink } from "../../runs/api/presenting.js";
import type { Spot } from "./spot.js";
import type { ChatSurface } from "./surface.js";

export interface PrivateNote {
  readonly text: string;
  readonly link?: NoteLink;
}

export async function tellPrivately(
  surface: Pick<ChatSurface, "whisper" | "directMessage" | "post">,
  logger: Logger,
  at: Spot,
  note: PrivateNote,
  publicFallback?: string,
): Promise<void> {
  const person = at.origin.requester;
  const { text, link } = note;
  if (await surface.whisper(at, text, link)) return;
  if (await surface.directMessage(person, text, at.origin, link)) return;
  if (publicFallback !== undefined && (await surface.post(at, publicFallback))) return;
  logger.warn({ user: person.id, conversationKey: at.origin.conversationKey }, "could not tell a person privately");
}
