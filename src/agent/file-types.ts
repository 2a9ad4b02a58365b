// Files in the contracts: the parts a person's message may bring (text, images, notes on
// attached files), what became of each file, and the files an answer carries out.
import type { ToolContext } from "./types.js";

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
  | "unsupported_type"
  | "unreadable"
  | "no_vision"
  | "files_off";

/** What became of one attached file, for the trace. */
export type FileOutcome =
  | {
      readonly status: "read";
      readonly file: FileInfo;
      readonly as: "text" | "pdf" | "image";
      /** Less than the whole file reached the prompt (token cap, page cap); read_attachment reads on. */
      readonly cut: boolean;
      /** Taken from the file store: not downloaded again. */
      readonly reused: boolean;
    }
  | { readonly status: "not_used"; readonly file: FileInfo; readonly reason: FileReason; readonly detail: string };

/** A file a tool adds to the answer, before it is stored. */
export interface OutgoingFile {
  readonly name: string;
  readonly mime: string;
  readonly data: Uint8Array;
}

/** A file of the answer, kept in the file store until the surface posts it with the answer. */
export interface AnswerFile {
  readonly id: string;
  readonly name: string;
  readonly mime: string;
  readonly size: number;
}

/** Where tools put files for the answer; present only where the surface posts them. */
export interface AnswerFileSink {
  /** Larger files are refused by `attach`: a tool checks the size first. */
  readonly maxBytes: number;
  /** Stores the files under ids made from the run, the call and their order, so a replayed call stores them once. */
  attach(context: ToolContext, files: readonly OutgoingFile[]): Promise<readonly AnswerFile[]>;
}
