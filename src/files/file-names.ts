// File names come from people and models: untrusted. Wherever one becomes a path (the
// console's data/files/) it is a single safe segment that can't climb out of its folder, and
// wherever it is shown (prompt headers, chat markdown) it can't break the line or the markup.
import { resolve, sep } from "node:path";

const MAX_NAME_CHARS = 120;
/** Windows refuses these as names (with any extension); a folder may be shared with it. */
const RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i;

/** A name that is safe as one path segment on any system: no separators, no control characters, no leading dots. */
export function safeFileName(name: string, fallback = "file"): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  let cleaned = base
    .normalize("NFC")
    .replace(/[\u0000-\u001f\u007f-\u009f<>:"|?*\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, "_")
    .replace(/^[\s.]+/, "")
    .replace(/[\s.]+$/, "")
    .trim();
  if (cleaned.length > MAX_NAME_CHARS) {
    const dot = cleaned.lastIndexOf(".");
    const extension = dot > 0 && cleaned.length - dot <= 12 ? cleaned.slice(dot) : "";
    cleaned = cleaned.slice(0, MAX_NAME_CHARS - extension.length) + extension;
  }
  if (cleaned === "" || RESERVED.test(cleaned)) return RESERVED.test(cleaned) ? `_${cleaned}` : fallback;
  return cleaned;
}

/** Where a file named `name` goes inside `folder`; throws when the result would be outside it (it never is for a safeFileName). */
export function pathInside(folder: string, name: string): string {
  const root = resolve(folder);
  const path = resolve(root, safeFileName(name));
  if (!path.startsWith(root + sep)) throw new Error(`the file name "${name}" does not stay inside ${root}`);
  return path;
}

/** One line of visible characters, bounded: no control or direction-changing characters. */
function oneLine(name: string): string {
  const line = name
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  const shown = line.length > MAX_NAME_CHARS ? `${line.slice(0, MAX_NAME_CHARS - 1)}…` : line;
  return shown === "" ? "(no name)" : shown;
}

/** A name inside double quotes in a prompt header: it can't end the quote or start a new line. */
export function promptName(name: string): string {
  return oneLine(name).replace(/["`]/g, "'");
}

/** A name in markdown (Discord, the console): markup, links and mention syntax shown as text. Slack's mrkdwn escapes its own way. */
export function markdownName(name: string): string {
  return oneLine(name).replace(/[\\`*_~|<>[\]()#@!]/g, (char) => `\\${char}`);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
