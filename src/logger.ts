// Structured logs (pino). Secrets never reach a log line: known secret fields are redacted
// and token-shaped strings in messages are masked wherever they appear.
// Logging is on the loop's hot path (one info line per step), so redaction is one pass over the
// keys of the logged object and of the objects in it: pino's path-based redaction with wildcards
// cost ~17 µs a line, more than the step itself.
import { pino, type Logger } from "pino";

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

export function createLogger(level: string = process.env.LOG_LEVEL ?? "info", destination?: pino.DestinationStream): Logger {
  return pino(
    {
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
    },
    destination ?? pino.destination(2),
  );
}

/** For tests and benchmarks. */
export const silentLogger: Logger = pino({ level: "silent" });

export type { Logger };
