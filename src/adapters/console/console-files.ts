// The console's files. In: `/attach PATH [question]` names any file the console's own user can
// read (absolute, or relative to where the bot was started), under the same limits as a chat
// platform's file (read when the run starts, src/files/local-file.ts). Out: the files of an answer
// (the core's answer card carries them) are written under data/files/ (the name made safe, never
// outside that folder, never over an earlier file) and their paths printed.
import { createHash } from "node:crypto";
import { mkdir, stat, writeFile } from "node:fs/promises";
import { basename, extname, resolve } from "node:path";
import { type FileDescriptor, fileRefOf } from "../../files/file-ref.js";
import { pathInside } from "../../files/file-names.js";
import { readLocalFile } from "../../files/local-file.js";
import type { UploadFile } from "../core/cards.js";
import type { SurfaceFileSupport } from "../core/surface.js";

/** Where the console writes an answer's files, from the folder it was started in. */
export const CONSOLE_FILES_DIR = "data/files";

export type AttachedPath =
  | { readonly kind: "file"; readonly file: FileDescriptor }
  | { readonly kind: "refused"; readonly message: string };

/** The file at `path` as a descriptor; its id changes when the file does, so an edited file is read again. Never rejects. */
export async function attachedPath(path: string, cwd: string): Promise<AttachedPath> {
  const absolute = resolve(cwd, path);
  try {
    const info = await stat(absolute);
    if (!info.isFile()) return { kind: "refused", message: `${absolute} is not a file.` };
    const id = `local-${createHash("sha256").update(`${absolute}\n${info.size}\n${info.mtimeMs}`).digest("base64url").slice(0, 20)}`;
    const name = basename(absolute);
    return { kind: "file", file: { id, name, mime: "application/octet-stream", size: info.size, source: { path: absolute } } };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { kind: "refused", message: `I can't read ${absolute} (${typeof code === "string" ? code : String(error)}).` };
  }
}

export function consoleFiles(): SurfaceFileSupport {
  return {
    uploads: true,
    refFor(file) {
      return fileRefOf(file, (request) =>
        file.source.path === undefined
          ? Promise.resolve({ kind: "failed", reason: "failed_download", detail: "the console gave no path for this file" })
          : readLocalFile(file.source.path, request),
      );
    },
  };
}

export interface FileDesk {
  /** `/attach`'s path, from the working directory. */
  attach(path: string): Promise<AttachedPath>;
  /** Writes an answer's files; the lines to print: each path, or why they could not be written. Never rejects. */
  save(files: readonly UploadFile[]): Promise<string[]>;
}

/** `cwd`: where relative paths start (default the working directory); `filesDir`: the answer files' folder (default data/files). */
export function createFileDesk(deps: { readonly cwd?: string; readonly filesDir?: string }): FileDesk {
  const cwd = deps.cwd ?? process.cwd();
  const folder = resolve(cwd, deps.filesDir ?? CONSOLE_FILES_DIR);
  return {
    attach: (path) => attachedPath(path, cwd),
    async save(files) {
      try {
        return (await writeAnswerFiles(folder, files)).map((path) => `Saved ${path}`);
      } catch (error) {
        // The answer showed already: its files are what is missing, and the person is told why.
        return [`Could not save the answer's files under ${folder} (${error instanceof Error ? error.message : String(error)}).`];
      }
    },
  };
}

/** Writes each file under `folder` with a name of its own (report.csv, report-2.csv…); returns the paths. */
export async function writeAnswerFiles(folder: string, files: readonly UploadFile[]): Promise<string[]> {
  if (files.length === 0) return [];
  await mkdir(folder, { recursive: true });
  const paths: string[] = [];
  for (const file of files) {
    const extension = extname(pathInside(folder, file.name));
    const stem = basename(pathInside(folder, file.name), extension);
    for (let copy = 1; ; copy++) {
      const path = pathInside(folder, copy === 1 ? `${stem}${extension}` : `${stem}-${copy}${extension}`);
      try {
        await writeFile(path, file.data, { flag: "wx" });
        paths.push(path);
        break;
      } catch (error) {
        if ((error as { code?: unknown }).code !== "EEXIST") throw error;
      }
    }
  }
  return paths;
}
