// A channel's `tools.allow` / `tools.deny` entry that matches no tool is most likely a typo:
// the tool it meant stays allowed (or stays out). It is named once at start and after each
// edit of the settings file, as an operator's notice (`notice: true`, shown in the console).
import type { Logger } from "../logger.js";
import { globToRegExp } from "../agent/tools/tool-policy.js";
import type { Settings } from "./settings-schema.js";

/** `channels.<id>.tools.<list>: "<pattern>"` for each entry that matches none of `names`. */
export function unmatchedToolEntries(settings: Settings, names: readonly string[]): string[] {
  const found: string[] = [];
  for (const [channel, entry] of Object.entries(settings.channels)) {
    for (const list of ["allow", "deny"] as const) {
      for (const pattern of entry.tools?.[list] ?? []) {
        const test = globToRegExp(pattern);
        if (!names.some((name) => test.test(name))) found.push(`channels.${channel}.tools.${list}: "${pattern}"`);
      }
    }
  }
  return found;
}

export function warnAboutUnmatchedToolEntries(
  settings: Settings,
  names: readonly string[],
  file: string | undefined,
  logger: Logger,
): void {
  for (const entry of unmatchedToolEntries(settings, names)) {
    logger.warn({ file, entry, notice: true }, `the settings file's ${entry} matches no tool; /tools lists the tools' names`);
  }
}
