// read_attachment: more of a file attached in this conversation, from a page or a token on,
// for the files whose text was cut in the prompt. It reads only the conversation's own files
// by the id in their header: it takes no URL and fetches nothing (no way to make the bot
// request an address of the model's choosing), and another conversation's files can't be named.
import { z } from "zod";
import type { TokenCounter } from "../../tokens/token-counter.js";
import type { Tool } from "../../contracts/types.js";
import type { FileStore, StoredFile } from "../../files/file-store.js";
import { fileLabel, pagesText, readOnCall } from "../../files/file-text.js";

export interface ReadAttachmentDeps {
  readonly files: FileStore;
  readonly counter: TokenCounter;
  /** Tokens of text one call returns (below the observation cap, so the header and its read-on call survive). */
  readonly chunkTokens: number;
}

const Args = z
  .object({
    file: z.string().trim().min(1).max(200).describe('the id in the file\'s header, e.g. "F07ABC123" (not its name: names can repeat)'),
    from_page: z.number().int().min(1).max(100_000).optional().describe("PDFs: the first page to read (default 1)"),
    from_token: z
      .number()
      .int()
      .min(0)
      .max(100_000_000)
      .optional()
      .describe("the token to read on from, as the header of the cut text says"),
  })
  .strict();
type Args = z.infer<typeof Args>;

const LOOKS_LIKE_URL = /^[a-z][a-z\d+.-]*:|^\/\/|^www\./i;

async function fromToken(text: string, from: number, counter: TokenCounter): Promise<number> {
  return from === 0 ? 0 : (await counter.truncateYielding(text, from)).text.length;
}

async function readOn(
  text: string,
  at: { readonly from_page?: number; readonly from_token: number },
  label: string,
  fileId: string,
  deps: ReadAttachmentDeps,
): Promise<string> {
  const start = await fromToken(text, at.from_token, deps.counter);
  if (start >= text.length) return `[${label}: nothing more, the text ends before token ${at.from_token.toLocaleString("en-US")}]`;
  const chunk = await deps.counter.truncateYielding(text.slice(start), deps.chunkTokens);
  const shown = await deps.counter.countTextYielding(chunk.text);
  const end = at.from_token + shown;
  const more = chunk.truncated ? `: read on with ${readOnCall(fileId, { ...at, from_token: end })}` : "; the end of the file";
  return `[${label}${at.from_page ? `, from page ${at.from_page}` : ""}, tokens ${at.from_token.toLocaleString("en-US")}–${end.toLocaleString("en-US")}${more}]\n${chunk.text}`;
}

async function read(file: StoredFile, args: Args, deps: ReadAttachmentDeps): Promise<string> {
  const label = fileLabel(file);
  const fromTokenArg = args.from_token ?? 0;
  switch (file.kind) {
    case "unreadable":
      return `[${label} can't be read: ${file.detail}]`;
    case "image":
      return `[${label} is a ${file.originalWidth}×${file.originalHeight} image: it has no text to read; a model that sees images was shown it when it was attached]`;
    case "text":
      if (args.from_page !== undefined) throw new Error(`${label} is not a PDF: it has no pages; read it with from_token`);
      return readOn(file.text, { from_token: fromTokenArg }, label, file.id, deps);
    case "pdf": {
      const page = args.from_page ?? 1;
      if (page > file.pageCount) throw new Error(`${label} has ${file.pageCount} pages`);
      if (page > file.pages.length) return `[${label}: only the first ${file.pages.length} of its ${file.pageCount} pages were read]`;
      const text = pagesText(file.pages, page);
      return readOn(
        text,
        args.from_page ? { from_page: page, from_token: fromTokenArg } : { from_token: fromTokenArg },
        label,
        file.id,
        deps,
      );
    }
  }
}

export function readAttachmentTool(deps: ReadAttachmentDeps): Tool<Args> {
  return {
    name: "read_attachment",
    description:
      "Reads more of a file attached in this conversation whose text was cut in the prompt (its header says where to read on). " +
      "Takes the file's id from its header; it reads only this conversation's attached files and never fetches a URL.",
    schema: Args,
    effect: "read",
    headedResult: true,
    async execute(args, context) {
      const conversationKey = context.origin.conversationKey;
      const known = async () => {
        const ids = await deps.files.list(conversationKey);
        return ids.length > 0 ? `The files attached here: ${ids.join(", ")}.` : "No file is attached in this conversation.";
      };
      if (LOOKS_LIKE_URL.test(args.file))
        throw new Error(`read_attachment reads attached files by their id and never fetches addresses. ${await known()}`);
      const file = await deps.files.load(conversationKey, args.file);
      if (!file) throw new Error(`there is no attached file "${args.file}" in this conversation. ${await known()}`);
      return read(file, args, deps);
    },
  };
}
