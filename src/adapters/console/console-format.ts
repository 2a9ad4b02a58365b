// How the core writes in a terminal, and who the console's person is called.
import { userInfo } from "node:os";
import type { TextFormat } from "../core/surface.js";
import { clean } from "./console-text.js";

export function osUserName(): string {
  try {
    return userInfo().username || "you";
  } catch {
    return "you";
  }
}

/** Terminal-safe text; ids are shown as they are, links after their label. */
export const consoleFormat: TextFormat = {
  plain: clean,
  person: clean,
  role: clean,
  code: clean,
  block: clean,
  link: (url, label) => `${label} ${clean(url)}`,
  answer: clean,
  maxChars: 20_000,
};
