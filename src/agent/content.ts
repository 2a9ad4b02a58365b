// A user message's content as the parts of it that are text: for readers that want words
// (compaction, the demo model, digests), whether the message is a string or a list of parts.
import type { ContentPart, UserContent } from "../contracts/files.js";

/** One line standing in for an image where only text can go. */
export function imageLine(part: Extract<ContentPart, { type: "image" }>): string {
  return `[image ${part.file.id}: "${part.file.name}" (${part.width}×${part.height})]`;
}

/** The text of the content: text parts and file notes in order, an image as one line. */
export function contentText(content: UserContent | null): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "image" ? imageLine(part) : part.text)).join("\n");
}

/** The content as parts, so two contents can be joined without losing an image. */
export function asParts(content: UserContent): readonly ContentPart[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/** Two contents as one: strings stay a string; otherwise the parts of both, separated by a blank line. */
export function joinContent(first: UserContent, second: UserContent): UserContent {
  if (typeof first === "string" && typeof second === "string") return `${first}\n\n${second}`;
  return [...asParts(first), { type: "text", text: "\n\n" }, ...asParts(second)];
}
