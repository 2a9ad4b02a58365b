// Reads the settings file: which file (BOT_SETTINGS, else bot.settings.json when present),
// JSON or YAML by its extension, then the schema. Returns problems as lines, never throws.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname, resolve } from "node:path";
import { checkSettings, type SettingsCheck } from "./settings-schema.js";

export const DEFAULT_SETTINGS_FILE = "bot.settings.json";

/** The file to use, or undefined when none is configured and the default does not exist. */
export function settingsPath(configured: string | undefined, cwd: string = process.cwd()): string | undefined {
  if (configured !== undefined && configured.trim() !== "") return resolve(cwd, configured);
  const fallback = resolve(cwd, DEFAULT_SETTINGS_FILE);
  return existsSync(fallback) ? fallback : undefined;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message.split("\n")[0]! : String(error);
}

/** What an empty file says: never "no settings" (everyone allowed, no limits), since an editor's save passes through it. */
const EMPTY_FILE_PROBLEM = "the file is empty; write {} in it for no settings";

/** Parses `text` as the file's format; problems are lines ready to show. */
export async function parseSettingsText(text: string, path: string): Promise<SettingsCheck> {
  if (text.trim() === "") return { kind: "invalid", problems: [EMPTY_FILE_PROBLEM] };
  const yaml = [".yaml", ".yml"].includes(extname(path).toLowerCase());
  let data: unknown;
  try {
    // The YAML parser is loaded only for a YAML file: most bots start with JSON or none.
    data = yaml ? (await import("yaml")).parse(text) : JSON.parse(text);
  } catch (error) {
    return { kind: "invalid", problems: [`not valid ${yaml ? "YAML" : "JSON"}: ${reasonOf(error)}`] };
  }
  // YAML of comments alone (or a bare `null`) holds no settings either.
  if (data === null || data === undefined) return { kind: "invalid", problems: [EMPTY_FILE_PROBLEM] };
  if (typeof data !== "object" || Array.isArray(data))
    return { kind: "invalid", problems: ["expects an object with access, limits and channels"] };
  return checkSettings(data);
}

export async function readSettingsFile(path: string): Promise<SettingsCheck> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    return { kind: "invalid", problems: [`cannot read the file: ${reasonOf(error)}`] };
  }
  return parseSettingsText(text, path);
}
