// Structured logs (pino). Secrets never reach a log line: known secret fields are redacted
// and token-shaped strings in messages are masked wherever they appear.
// Logging is on the loop's hot path (one info line per step), so redaction is one pass over the
// keys of the logged object and of the objects in it: pino's path-based redaction with wildcards
// cost ~17 µs a line, more than the step itself.
//
// Two formats (LOG_FORMAT): JSON lines for log collectors, and a pretty one line per entry for a
// person at a terminal. Pretty is pino-pretty's formatter called in this thread, not a pino
// transport: a transport is a worker thread (~+19 MB RSS measured, and a flush at exit) for
// what is, on a terminal, a few lines a minute; in-thread it costs ~25 µs more a line. It is
// loaded only when chosen (its import takes about as long as pino's).
import { createRequire } from "node:module";
import { pino, type Logger } from "pino";
import type PinoPretty from "pino-pretty";
import { z } from "zod";
import { ConfigError } from "./errors.js";

const TOKEN_PATTERN =
  /\b(xox[abposr]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+|sk-[A-Za-z0-9_-]{8,}|[MN][A-Za-z\d_-]{23,25}\.[A-Za-z\d_-]{6}\.[A-Za-z\d_-]{27,})\b/g;

/** The same pattern without the global flag, so testing a string keeps no state between calls. */
const HAS_TOKEN = new RegExp(TOKEN_PATTERN.source);

/** Masks anything shaped like a Slack, Discord or OpenAI token. */
export function maskSecrets(text: string): string {
  return text.replace(TOKEN_PATTERN, "[secret]");
}

/** Field names whose values are never logged, at the top level of a log object or one level down. */
const SECRET_KEYS = new Set(["apiKey", "token", "botToken", "appToken", "signingSecret", "authorization"]);
const CENSOR = "[secret]";

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;

/** A copy with secret fields censored, or the object itself when it has none (the common case: no allocation). */
function redacted(object: Record<string, unknown>, depth: number): Record<string, unknown> {
  let out = object;
  for (const key in object) {
    const value = object[key];
    let replacement: unknown = value;
    if (SECRET_KEYS.has(key)) replacement = CENSOR;
    else if (depth > 0 && isPlainObject(value)) replacement = redacted(value, depth - 1);
    if (replacement !== value) {
      if (out === object) out = { ...object };
      out[key] = replacement;
    }
  }
  return out;
}

function maskedError(error: unknown): unknown {
  const serialized = pino.stdSerializers.err(error as Error) as unknown as Record<string, unknown> | undefined;
  if (serialized === null || typeof serialized !== "object") return serialized;
  for (const key of ["message", "stack"]) if (typeof serialized[key] === "string") serialized[key] = maskSecrets(serialized[key]);
  return serialized;
}

export type LogFormat = "pretty" | "json";

const LogFormatSetting = z.enum(["pretty", "json"]);

/** LOG_FORMAT, or pretty when stderr is a terminal and JSON otherwise. Throws ConfigError for any other value. */
export function logFormatFrom(env: NodeJS.ProcessEnv, terminal: boolean = process.stderr.isTTY === true): LogFormat {
  const value = env.LOG_FORMAT?.trim();
  if (!value) return terminal ? "pretty" : "json";
  const parsed = LogFormatSetting.safeParse(value);
  if (!parsed.success) throw new ConfigError("LOG_FORMAT", "expects pretty or json", value);
  return parsed.data;
}

/** JSON to `destination` (default stderr); `format: "pretty"` writes one readable line per entry there instead. */
export function createLogger(
  level: string = process.env.LOG_LEVEL ?? "info",
  destination?: pino.DestinationStream,
  format: LogFormat = "json",
): Logger {
  return pino(options(level), format === "pretty" ? prettyStream(level, destination) : (destination ?? pino.destination(2)));
}

/**
 * Console mode, where the log shares the terminal with the conversation: errors are logged to
 * `destination` (stderr) as usual, and of the warnings only those an operator must act on (logged
 * with `notice: true`: a rejected settings edit, a write tool that runs without asking…) reach
 * the person, each as one line through `notice`.
 */
export function createConsoleLogger(notice: (line: string) => void, format: LogFormat, destination?: pino.DestinationStream): Logger {
  const errors = format === "pretty" ? prettyStream("error", destination) : (destination ?? pino.destination(2));
  const notices = {
    write(line: string) {
      const entry = JSON.parse(line) as { level?: number; notice?: unknown; msg?: unknown };
      if (entry.notice === true && (entry.level ?? 0) < ERROR_LEVEL) notice(String(entry.msg));
    },
  };
  return pino(
    options("warn"),
    pino.multistream([
      { level: "error", stream: errors },
      { level: "warn", stream: notices },
    ]),
  );
}

const ERROR_LEVEL = 50;

function options(level: string): pino.LoggerOptions {
  return {
    level,
    formatters: { log: (object) => redacted(object, 1) },
    // A library's error message can quote the token it was given.
    serializers: { err: maskedError },
    hooks: {
      logMethod(args, method) {
        for (let index = 0; index < args.length; index++) {
          const arg = args[index];
          if (typeof arg === "string" && HAS_TOKEN.test(arg)) args[index] = maskSecrets(arg);
        }
        method.apply(this, args);
      },
    },
  };
}

/**
 * `[12:00:01.234] WARN: the model is unavailable {"runId":"…","cause":"…"}`: an error's message
 * follows the line's own; its stack (pino-pretty's block under the line) only at debug and trace.
 */
function prettyStream(level: string, destination: pino.DestinationStream | undefined): pino.DestinationStream {
  const { prettyFactory } = createRequire(import.meta.url)("pino-pretty") as typeof PinoPretty;
  const stacks = level === "debug" || level === "trace";
  const format = prettyFactory({
    colorize: destination === undefined && process.stderr.isTTY === true,
    singleLine: true,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: stacks ? "pid,hostname" : "pid,hostname,err",
    messageFormat: (log, messageKey) => {
      const message = String(log[messageKey] ?? "");
      const error = log.err as { message?: unknown } | undefined;
      return !stacks && typeof error?.message === "string" ? `${message}: ${error.message}` : message;
    },
  });
  const out = destination ?? pino.destination(2);
  // Formatted in the caller's turn and written synchronously, like the JSON lines: nothing is left to flush at exit.
  return { write: (line: string) => out.write(format(line)) };
}

/** For tests and benchmarks. */
export const silentLogger: Logger = pino({ level: "silent" });

export type { Logger };
