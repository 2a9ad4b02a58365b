// Where the answer's files wait until the surface posts them: in the file store, under an id
// made from the run, the call and the file's place in it, so a call replayed after a restart
// stores its files once and the answer lists them once.
import { createHash } from "node:crypto";
import type { AnswerFile, AnswerFileSink } from "../contracts/types.js";
import type { FileStore } from "./file-store.js";
import { formatBytes, safeFileName } from "./file-names.js";

export function answerFileId(runId: string, callId: string, index: number): string {
  return `a-${createHash("sha256").update(`${runId}\n${callId}\n${index}`).digest("base64url").slice(0, 20)}`;
}

/** `maxBytes`: each file at most this (FILE_MAX_BYTES); a surface with a lower upload limit refuses more at posting time. */
export function createAnswerFiles(files: FileStore, maxBytes: number): AnswerFileSink {
  return {
    maxBytes,
    async attach(context, outgoing) {
      const attached: AnswerFile[] = [];
      for (const [index, file] of outgoing.entries()) {
        if (file.data.byteLength > maxBytes)
          throw new Error(
            `the file "${file.name}" is ${formatBytes(file.data.byteLength)}, more than ${formatBytes(maxBytes)} (FILE_MAX_BYTES)`,
          );
        const id = answerFileId(context.runId, context.callId ?? "call", index);
        const name = safeFileName(file.name);
        const data = Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength);
        await files.saveAnswerFile(context.origin.conversationKey, id, { name, mime: file.mime, data });
        attached.push({ id, name, mime: file.mime, size: data.length });
      }
      return attached;
    },
  };
}
