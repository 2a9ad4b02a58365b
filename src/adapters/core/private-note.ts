// Telling one person something only they should see, the same way on every surface: the
// platform's private message where they are (ephemeral), else a direct message from the bot,
// else (only when the caller gives one) a public reply that names no details. Never throws.
import type { Logger } from "../../logger.js";
import type { Spot } from "./spot.js";
import type { ChatSurface } from "./surface.js";

export async function tellPrivately(
  surface: Pick<ChatSurface, "whisper" | "directMessage" | "post">,
  logger: Logger,
  at: Spot,
  text: string,
  publicFallback?: string,
): Promise<void> {
  const person = at.origin.requester;
  if (await surface.whisper(at, text)) return;
  if (await surface.directMessage(person, text, at.origin)) return;
  if (publicFallback !== undefined && (await surface.post(at, publicFallback))) return;
  logger.warn({ user: person.id, conversationKey: at.origin.conversationKey }, "could not tell a person privately");
}
