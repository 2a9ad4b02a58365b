// What later turns of a conversation keep of a message's files: one line each (id, name, type,
// size, and how it was read), never the file again; read_attachment reads it while it is kept.
import type { ChatMessage, ContentPart } from "../contracts/types.js";
import { fileLabel } from "./file-text.js";
import { REASON_TEXT } from "./outcome-text.js";

type FilePart = Extract<ContentPart, { type: "image" | "file" }>;

function describe(part: FilePart): string {
  if (part.type === "image") return `a ${part.width}×${part.height} image, shown to the model`;
  if (part.status === "read") return "read whole";
  if (part.status === "cut") return "read in part; read_attachment reads on";
  return `not read: ${REASON_TEXT[part.status]}`;
}

/** One line per file attached to the run's messages, in order; none when no message brought files. */
export function attachedFileLines(messages: readonly ChatMessage[]): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const message of messages) {
    if (message.role !== "user" || typeof message.content === "string") continue;
    for (const part of message.content) {
      if (part.type === "text" || seen.has(part.file.id)) continue;
      seen.add(part.file.id);
      lines.push(`[attached ${fileLabel(part.file)} — ${describe(part)}]`);
    }
  }
  return lines;
}
