// Structured logs (pino). Secrets never reach a log line: known secret fields are redacted
// and token-shaped strings are masked wherever they appear.
import { pino, type Logger } from "pino";

const TOKEN_PATTERN = /\b(xox[abposr]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+|sk-[A-Za-z0-9_-]{8,}|[MN][A-Za-z\d_-]{23,25}\.[A-Za-z\d_-]{6}\.[A-Za-z\d_-]{27,})\b/g;

/** Masks anything shaped like a Slack, Discord or OpenAI token. */
export function maskSecrets(text: string): string {
  return text.replace(TOKEN_PATTERN, "[secret]");
}

const REDACTED_PATHS = [
  "apiKey",
  "token",
  "botToken",
  "appToken",
  "signingSecret",
  "authorization",
  "*.apiKey",
  "*.token",
  "*.botToken",
  "*.appToken",
  "*.signingSecret",
  "*.authorization",
  "headers.authorization",
];

export function createLogger(level: string = process.env.LOG_LEVEL ?? "info", destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: "[secret]" },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((arg) => (typeof arg === "string" ? maskSecrets(arg) : arg)) as Parameters<typeof method>);
        },
      },
    },
    destination ?? pino.destination(2),
  );
}

/** For tests and benchmarks. */
export const silentLogger: Logger = pino({ level: "silent" });

export type { Logger };
