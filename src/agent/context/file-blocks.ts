// A file's text reaches the model as data: whoever shared the file, its words are not the
// requester's instructions. The part's first line is the bot's own (what the file is, how to read
// on with read_attachment) and stays outside the block, where the model follows it.
import type { SourcedText } from "../../contracts/provenance.js";
import type { ContentPart } from "../../contracts/types.js";
import { asData } from "./data-blocks.js";

const isRead = (part: ContentPart): part is Extract<ContentPart, { type: "file" }> =>
  part.type === "file" && (part.status === "read" || part.status === "cut");

function withBodyAsData(part: Extract<ContentPart, { type: "file" }>, boundary: string): ContentPart {
  const headerEnd = part.text.indexOf("\n");
  if (headerEnd < 0) return part;
  const body = asData(part.text.slice(headerEnd + 1), { kind: "file", name: part.file.name }, boundary);
  return { ...part, text: `${part.text.slice(0, headerEnd)}\n${body}` };
}

/** The parts with each read file's text in a data block under `boundary`; notes and images as they are. */
export function filePartsAsData(parts: readonly ContentPart[], boundary: string): ContentPart[] {
  return parts.map((part) => (isRead(part) ? withBodyAsData(part, boundary) : part));
}

/** The read files' texts with their sources, for the write origins an approval card shows. */
export function fileSources(parts: readonly ContentPart[]): SourcedText[] {
  return parts.filter(isRead).map((part) => ({ source: { kind: "file", name: part.file.name }, text: part.text }));
}
