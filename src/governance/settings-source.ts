// The settings in force: read at start (a bad file stops the start), then re-read whenever
// the file changes. The folder is watched, not the file, so an editor that saves by
// renaming a new file into place is seen too. Settings never fail open: an edit that leaves the
// file empty, unparseable or against the schema (an editor's truncate before its write, a
// half-written file) keeps the previous settings with a warning.
import { watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import type { Logger } from "../logger.js";
import { readSettingsFile } from "./settings-file.js";
import { OPEN_SETTINGS, type Settings, type SettingsCheck } from "./settings-schema.js";

export interface SettingsSource {
  current(): Settings;
  /** The file in force, or undefined when the bot runs without one (everything allowed, no limits). */
  readonly path: string | undefined;
  /** Called after each re-read with what it found (applied or kept out). Must not throw. */
  onReload(listener: (check: SettingsCheck) => void): void;
  close(): void;
}

export type SettingsOpen =
  | { readonly kind: "ok"; readonly source: SettingsSource }
  | { readonly kind: "invalid"; readonly path: string; readonly problems: readonly string[] };

/** Several events arrive for one save; one re-read after they settle is enough. */
const RELOAD_DEBOUNCE_MS = 75;

export function fixedSettings(settings: Settings = OPEN_SETTINGS): SettingsSource {
  return { current: () => settings, path: undefined, onReload: () => undefined, close: () => undefined };
}

export interface SettingsReading {
  /** Reads and checks the file; tests pass a slower one to make re-reads overlap. */
  readonly read?: (path: string) => Promise<SettingsCheck>;
}

export async function openSettings(path: string | undefined, logger: Logger, options: SettingsReading = {}): Promise<SettingsOpen> {
  if (path === undefined) return { kind: "ok", source: fixedSettings() };
  const read = options.read ?? readSettingsFile;
  const first = await read(path);
  if (first.kind === "invalid") return { kind: "invalid", path, problems: first.problems };
  let settings = first.settings;
  let shown = JSON.stringify(settings);
  const listeners: Array<(check: SettingsCheck) => void> = [];
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let inFlight: Promise<void> | undefined;
  let again = false;

  /** One re-read at a time; a change seen during one is read once more after it, so the newest read is applied last. */
  function requestReload(): void {
    if (inFlight) {
      if (!again) logger.debug({ file: path }, "the settings file changed during a re-read; reading it again after this one");
      again = true;
      return;
    }
    inFlight = reload().finally(() => {
      inFlight = undefined;
      if (again && !closed) {
        again = false;
        requestReload();
      }
    });
  }

  async function reload(): Promise<void> {
    const check = await read(path!);
    if (closed) return;
    if (check.kind === "invalid") {
      logger.warn(
        { file: path, problems: check.problems, notice: true },
        `the settings file has problems; keeping the previous settings: ${check.problems.join("; ")}`,
      );
    } else if (JSON.stringify(check.settings) !== shown) {
      settings = check.settings;
      shown = JSON.stringify(settings);
      logger.info({ file: path }, "settings reloaded");
    }
    for (const listener of listeners) listener(check);
  }

  const name = basename(path);
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(path), { persistent: false }, (_event, changed) => {
      if (changed !== null && changed !== name) return;
      clearTimeout(timer);
      timer = setTimeout(requestReload, RELOAD_DEBOUNCE_MS);
    });
    watcher.on("error", (error) =>
      logger.warn({ err: error, file: path }, "stopped watching the settings file; restart to pick up changes"),
    );
  } catch (error) {
    logger.warn({ err: error, file: path }, "cannot watch the settings file; changes need a restart");
  }

  return {
    kind: "ok",
    source: {
      current: () => settings,
      path,
      onReload: (listener) => void listeners.push(listener),
      close() {
        closed = true;
        clearTimeout(timer);
        watcher?.close();
      },
    },
  };
}
