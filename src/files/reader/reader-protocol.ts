// What the bot and its file reader process say to each other over IPC: one request at a time,
// answered by its id. The reader handled hostile bytes to make its answer, so the bot checks the
// answer's shape (and its sizes) before it uses it.
import { z } from "zod";

/** What one PDF may cost: see pdf-text.ts. */
export interface PdfLimits {
  readonly maxPages: number;
  readonly maxExpandedBytes: number;
  readonly maxTextChars: number;
  readonly pagesWithinMs: number;
}

export type ReadRequest =
  | ({ readonly id: number; readonly kind: "pdf"; readonly data: Uint8Array } & PdfLimits)
  | { readonly id: number; readonly kind: "image"; readonly data: Uint8Array };

const ImageMimeSchema = z.enum(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const side = z.number().int().positive().max(1_000_000);

export const ReadResultSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("pdf"), pageCount: z.number().int().nonnegative(), pages: z.array(z.string()) }),
  z.object({
    kind: z.literal("image"),
    mime: ImageMimeSchema,
    data: z.instanceof(Uint8Array),
    width: side,
    height: side,
    originalWidth: side,
    originalHeight: side,
  }),
  /** A PDF's streams decode to more than the budget: refused before pdf.js read them. */
  z.object({ kind: z.literal("expands"), budget: z.number().int().positive() }),
  /** The reader's memory ceiling refused an allocation while it read. */
  z.object({ kind: z.literal("out_of_memory") }),
  /** Encrypted, broken, not a supported image, too many pixels: the reason in a sentence. */
  z.object({ kind: z.literal("unreadable"), detail: z.string().max(500) }),
]);
export type ReadResult = z.infer<typeof ReadResultSchema>;

export const ReadAnswerSchema = z.object({
  id: z.number().int(),
  result: ReadResultSchema,
  /** The reader's resident memory after the read, in bytes: a reader grown large is retired. */
  rss: z.number().nonnegative(),
});
export type ReadAnswer = z.infer<typeof ReadAnswerSchema>;
