// An answer's files as a surface posts them: loaded from the file store, and each checked
// against the platform's upload limit before any request, so a file the platform would refuse
// (Discord's 10 MiB for bots) is named in the answer instead of failing after the answer is lost.
import type { AnswerFile } from "../../contracts/types.js";
import { formatBytes } from "../../files/file-names.js";
import type { StoredAnswerFile } from "../../files/file-store.js";
import type { UploadFile } from "./cards.js";
import type { TextFormat } from "./surface.js";

/** A file the surface uploads with the answer. */
export interface AnswerFileSource {
  /** The stored file; undefined once the store no longer has it. */
  load(fileId: string): Promise<StoredAnswerFile | undefined>;
  /** The platform's largest upload (bytes); none: FILE_MAX_BYTES, checked when the file was attached, is the limit. */
  readonly limitBytes?: number;
  readonly platform: string;
}

export interface AnswerFiles {
  readonly files: readonly UploadFile[];
  /** One sentence per file that is not posted, for the answer's end. */
  readonly notes: readonly string[];
}

/** Never rejects: a file that can't be loaded is a note. */
export async function answerFilesOf(listed: readonly AnswerFile[], source: AnswerFileSource, format: TextFormat): Promise<AnswerFiles> {
  const files: UploadFile[] = [];
  const notes: string[] = [];
  for (const file of listed) {
    const name = format.code(file.name);
    if (source.limitBytes !== undefined && file.size > source.limitBytes) {
      notes.push(
        `The file ${name} (${formatBytes(file.size)}) is over ${source.platform}'s upload limit of ${formatBytes(source.limitBytes)}, so it is not attached.`,
      );
      continue;
    }
    const stored = await source.load(file.id).catch(() => undefined);
    if (!stored) notes.push(`The file ${name} is no longer stored, so it is not attached.`);
    else files.push({ name: stored.name, mime: stored.mime, data: stored.data });
  }
  return { files, notes };
}

/** The answer with the notes of files not posted after it. */
export function withFileNotes(answer: string, notes: readonly string[]): string {
  return notes.length === 0 ? answer : [answer, ...notes].join("\n\n");
}
