// What a person's message may carry besides text, as the model seam speaks it: shared by the
// loop, memory and the tokenizer, below all of them, importing nothing of the product.

/** A file as the model and the trace name it: `id` is what read_attachment takes (names can repeat). */
export interface FileInfo {
  readonly id: string;
  readonly name: string;
  readonly mime: string;
  /** Bytes, when known. */
  readonly size?: number;
}

export type ImageMime = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** An image's bytes (base64): inline, or a reference to the file store, resolved when the model request is built. */
export type ImageSource = { readonly data: string } | { readonly stored: { readonly conversationKey: string; readonly fileId: string } };

export type ContentPart =
  | { readonly type: "text"; readonly text: string }
  /** Only for a model that sees images; `width`/`height` are the pixels sent (after resizing). */
  | {
      readonly type: "image";
      readonly file: FileInfo;
      readonly mime: ImageMime;
      readonly width: number;
      readonly height: number;
      readonly source: ImageSource;
    }
  /**
   * What the model reads of an attached file: its text under a header, or a note that says why it gets none.
   * `status`: read whole, read in part (read_attachment reads on), or why it was not read.
   */
  | { readonly type: "file"; readonly file: FileInfo; readonly text: string; readonly status: "read" | "cut" | FileReason };

export type UserContent = string | readonly ContentPart[];

/** Why a file reached the model as a note only. */
export type FileReason =
  | "too_big"
  | "too_many"
  | "missing_scope"
  | "expired_link"
  | "failed_download"
  /** The link, or a redirect, leads off the platform's file hosts: refused before any request. */
  | "off_platform_link"
  | "unsupported_type"
  | "unreadable"
  | "no_vision"
  | "files_off";
