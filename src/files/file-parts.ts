// The stored files of one message as the parts the model reads, and what became of each for
// the trace. Extracted text shares FILE_TOTAL_TOKENS: the smaller files first, each given an
// equal share of what is left, so one huge log can't crowd out a short CSV. A cut file's header
// says where it was cut and how to read on.
import type { ContentPart, FileInfo, FileOutcome, FileReason } from "../contracts/types.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { Intake } from "./file-intake.js";
import type { StoredFile } from "./file-store.js";
import { fileLabel, pagesText, PROMPT_PDF_PAGES, readOnCall } from "./file-text.js";
import { promptName } from "./file-names.js";

export interface PreparedFiles {
  readonly parts: readonly ContentPart[];
  readonly outcomes: readonly FileOutcome[];
}

/** One file of the message: its description (as the surface gave it) and what intake made of it. */
export interface IntakeOf {
  readonly info: FileInfo;
  readonly intake: Intake;
}

type Readable = Extract<StoredFile, { kind: "text" | "pdf" }>;

function noteFor(info: FileInfo, reason: FileReason, detail: string): { part: ContentPart; outcome: FileOutcome } {
  return {
    part: { type: "file", file: info, text: `[${fileLabel(info)} is attached but was not read: ${detail}]`, status: reason },
    outcome: { status: "not_used", file: info, reason, detail },
  };
}

/** The text of a readable file that may enter the prompt: a PDF's first pages only. */
function promptBody(file: Readable): string {
  return file.kind === "text" ? file.text : pagesText(file.pages, 1, PROMPT_PDF_PAGES);
}

interface Cut {
  readonly text: string;
  /** Tokens shown when cut: read_attachment's `from_token` to read on. */
  readonly shownTokens?: number;
}

/** Smallest first, each an equal share of the tokens left; a file that needs less leaves the rest to the others. */
async function shareTokens(bodies: readonly string[], budget: number, counter: TokenCounter): Promise<Cut[]> {
  const order = bodies.map((_, index) => index).sort((a, b) => bodies[a]!.length - bodies[b]!.length);
  const cuts = new Array<Cut>(bodies.length);
  let left = Math.max(0, budget);
  for (const [position, index] of order.entries()) {
    const share = Math.floor(left / (order.length - position));
    const body = bodies[index]!;
    const cut = await counter.truncateYielding(body, share);
    const used = await counter.countTextYielding(cut.text);
    left -= used;
    cuts[index] = cut.truncated ? { text: cut.text, shownTokens: used } : { text: body };
  }
  return cuts;
}

function readableHeader(file: Readable, info: FileInfo, cut: Cut): string {
  const label = fileLabel({ ...info, size: file.size });
  const tokenCut = (what: string) =>
    `cut after ${cut.shownTokens!.toLocaleString("en-US")} tokens (${what}): read on with ${readOnCall(info.id, { from_token: cut.shownTokens! })}`;
  if (file.kind === "text") {
    const replaced = file.replaced > 0 ? `; ${file.replaced.toLocaleString("en-US")} invalid UTF-8 sequences replaced with �` : "";
    const extent =
      cut.shownTokens === undefined
        ? "complete"
        : tokenCut(`${cut.text.length.toLocaleString("en-US")} of ${file.text.length.toLocaleString("en-US")} characters`);
    return `[${label}${replaced}; ${extent}]`;
  }
  const pages = `${file.pageCount} page${file.pageCount === 1 ? "" : "s"}`;
  const noText = file.pages.every((page) => page === "") ? "; no text found on its pages (a scan? images in a PDF are not read)" : "";
  const extent =
    cut.shownTokens !== undefined
      ? tokenCut(`within pages 1–${Math.min(file.pageCount, PROMPT_PDF_PAGES)}`)
      : file.pageCount > PROMPT_PDF_PAGES
        ? `pages 1–${PROMPT_PDF_PAGES} shown: read on with ${readOnCall(info.id, { from_page: PROMPT_PDF_PAGES + 1 })}`
        : "complete";
  return `[${label}, ${pages}${noText}; ${extent}]`;
}

/** Parts in the order of the files; `budget` is the extracted text's share of the prompt in tokens. */
export interface PartOptions {
  readonly conversationKey: string;
  readonly vision: boolean;
  readonly budget: number;
  readonly counter: TokenCounter;
}

export async function fileParts(files: readonly IntakeOf[], options: PartOptions): Promise<PreparedFiles> {
  const readable = files.flatMap(({ intake }) =>
    intake.kind === "stored" && (intake.file.kind === "text" || intake.file.kind === "pdf") ? [intake.file] : [],
  );
  const cuts = await shareTokens(readable.map(promptBody), options.budget, options.counter);
  const cutOf = new Map(readable.map((file, index) => [file, cuts[index]!]));
  const parts: ContentPart[] = [];
  const outcomes: FileOutcome[] = [];
  for (const { info: described, intake } of files) {
    if (intake.kind === "failed") {
      const { part, outcome } = noteFor(described, intake.reason, intake.detail);
      parts.push(part);
      outcomes.push(outcome);
      continue;
    }
    const file = intake.file;
    const info: FileInfo = { id: file.id, name: described.name, mime: described.mime, size: file.size };
    if (file.kind === "unreadable") {
      const { part, outcome } = noteFor(info, file.reason, file.detail);
      parts.push(part);
      outcomes.push(outcome);
    } else if (file.kind === "image") {
      if (!options.vision) {
        const detail = `image \`${promptName(file.name)}\` (${file.originalWidth}×${file.originalHeight}) is attached but this model cannot see images`;
        parts.push({ type: "file", file: info, text: `[${fileLabel(info)}: ${detail}]`, status: "no_vision" });
        outcomes.push({ status: "not_used", file: info, reason: "no_vision", detail });
        continue;
      }
      parts.push({ type: "text", text: `[${fileLabel(info)}, ${file.width}×${file.height} image follows]` });
      parts.push({
        type: "image",
        file: info,
        mime: file.imageMime,
        width: file.width,
        height: file.height,
        // A reference, not the bytes: checkpoints stay small, and the request is built with the stored image.
        source: { stored: { conversationKey: options.conversationKey, fileId: file.id } },
      });
      outcomes.push({ status: "read", file: info, as: "image", cut: false, reused: intake.reused });
    } else {
      const cut = cutOf.get(file)!;
      const partly = cut.shownTokens !== undefined || (file.kind === "pdf" && file.pageCount > PROMPT_PDF_PAGES);
      parts.push({ type: "file", file: info, text: `${readableHeader(file, info, cut)}\n${cut.text}`, status: partly ? "cut" : "read" });
      outcomes.push({ status: "read", file: info, as: file.kind, cut: partly, reused: intake.reused });
    }
  }
  return { parts, outcomes };
}
