// A tool's result that carries files for the answer: the text is what the model reads, the
// files (already in the file store, see AnswerFileSink) go out with the answer.
import type { AnswerFile } from "../../contracts/types.js";

export class ToolOutput {
  constructor(
    readonly text: string,
    readonly files: readonly AnswerFile[],
  ) {}
}

/** The answer's files: those of every call that succeeded, in the order they were attached. */
export function answerFilesOf(calls: Iterable<{ readonly outcome: string; readonly files?: readonly AnswerFile[] }>): AnswerFile[] {
  const files: AnswerFile[] = [];
  for (const call of calls) if (call.outcome === "ok" && call.files) files.push(...call.files);
  return files;
}
