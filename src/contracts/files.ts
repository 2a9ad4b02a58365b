// Files in the contracts: the parts a person's message may bring (text, images, notes on
// attached files), what became of each file, and the files an answer carries out.
import type { FileInfo, FileReason } from "./content.js";

export type * from "./content.js";

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
