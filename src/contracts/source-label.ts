// A text source in words, for the model's data blocks and for people (the approval card's origin
// lines): "a message by @mallory in #general", "the file “report.pdf” shared by @ada". Names in
// it come from the platform or a tool and are untrusted too: each is one line, bounded, and
// free of double quotes, so a name can't end a quoted label or start a line of its own.
import type { Person } from "./person.js";
import type { TextSource } from "./provenance.js";

const NAME_MAX_CHARS = 80;

/** `value` as one short line: control characters and line breaks become spaces, double quotes single ones. */
export function plainName(value: string): string {
  const line = value
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, " ")
    .replaceAll('"', "'")
    .replace(/\s+/g, " ")
    .trim();
  return line.length <= NAME_MAX_CHARS ? line : `${line.slice(0, NAME_MAX_CHARS - 1)}…`;
}

/** "@ada": the name people know, else the platform's id. */
export function personName(person: Person): string {
  return `@${plainName(person.name ?? person.id)}`;
}

export function sourceLabel(source: TextSource): string {
  switch (source.kind) {
    case "requester":
      return `the message of ${personName(source.person)}, who asked`;
    case "person":
      return `a message by ${personName(source.author)} in ${plainName(source.channel)}`;
    case "file":
      return `the file “${plainName(source.name)}”${source.sharedBy ? ` shared by ${personName(source.sharedBy)}` : ""}`;
    case "tool": {
      const server = source.server === undefined ? "" : ` of MCP server ${plainName(source.server)}`;
      const channel = source.channel === undefined ? "" : ` reading ${plainName(source.channel)}`;
      return `the result of tool ${plainName(source.tool)}${server}${channel}`;
    }
    case "memory":
      return "the bot's memory of earlier conversations";
    case "derived":
      return source.from === "answer"
        ? "an earlier answer of the bot, made while it read others' text"
        : "the bot's digest of its earlier steps, which read others' text";
  }
}
