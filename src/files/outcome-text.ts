// One line per attached file for a run's trace: what was read, what was cut, and for each file
// that could not be used, why (too big, missing scope, expired link, unsupported type…).
import type { FileOutcome, FileReason } from "../contracts/types.js";
import { formatBytes } from "./file-names.js";

export const REASON_TEXT: Record<FileReason, string> = {
  too_big: "too big",
  too_many: "too many files",
  missing_scope: "missing scope",
  expired_link: "expired link",
  failed_download: "download failed",
  off_platform_link: "link off the platform",
  unsupported_type: "unsupported type",
  unreadable: "could not be read",
  no_vision: "the model can't see images",
  files_off: "files are off here",
};

/** `name` is shown as the caller renders names (markdown-escaped, or plain in a terminal). */
export function fileOutcomeLine(outcome: FileOutcome, name: (raw: string) => string = (raw) => raw): string {
  const size = outcome.file.size === undefined ? "" : `, ${formatBytes(outcome.file.size)}`;
  const label = `${name(outcome.file.name)} (${outcome.file.mime || "unknown type"}${size})`;
  if (outcome.status === "read") {
    const how = outcome.as === "image" ? "seen as an image" : outcome.cut ? `read in part (${outcome.as})` : `read (${outcome.as})`;
    return `✓ ${label}: ${how}${outcome.reused ? ", from the bot's store" : ""}`;
  }
  return `✗ ${label}: not used — ${REASON_TEXT[outcome.reason]}: ${outcome.detail}`;
}
