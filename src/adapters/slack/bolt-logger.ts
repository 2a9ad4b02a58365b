// Bolt and the Web API client log through our pino logger, so their lines get the same
// redaction and format as ours.
import { LogLevel, type Logger as BoltLogger } from "@slack/bolt";
import type { Logger } from "../../logger.js";

function line(parts: readonly unknown[]): string {
  return parts.map((part) => (typeof part === "string" ? part : part instanceof Error ? part.message : JSON.stringify(part))).join(" ");
}

const BOLT_LEVELS: Readonly<Record<string, LogLevel>> = {
  trace: LogLevel.DEBUG,
  debug: LogLevel.DEBUG,
  info: LogLevel.INFO,
  warn: LogLevel.WARN,
};

/**
 * Our log level stays the one setting: Bolt's setLevel is ignored. `quietWarnings`: the client's
 * warnings (each retry's "http request failed") go to debug, where the caller reports the outcome itself.
 */
export function boltLogger(logger: Logger, options: { readonly quietWarnings?: boolean } = {}): BoltLogger {
  let child = logger.child({ component: "slack" });
  return {
    debug: (...parts: unknown[]) => child.debug(line(parts)),
    info: (...parts: unknown[]) => child.info(line(parts)),
    warn: (...parts: unknown[]) => (options.quietWarnings ? child.debug(line(parts)) : child.warn(line(parts))),
    error: (...parts: unknown[]) => child.error(line(parts)),
    setLevel: () => {},
    getLevel: () => BOLT_LEVELS[child.level] ?? LogLevel.ERROR,
    setName: (name: string) => {
      child = logger.child({ component: name });
    },
  };
}
