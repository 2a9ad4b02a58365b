// The one home for thrown errors. Failures the model can act on are observations, not
// exceptions; these are for misconfiguration, unavailable services and bugs.

export type ErrorCode =
  | "config_invalid"
  | "model_unavailable"
  | "store_unavailable"
  | "store_url_invalid"
  | "approval_key_unavailable"
  | "surface_unavailable"
  | "intake_unavailable"
  | "request_body_invalid"
  | "run_interrupted"
  | "tool_timeout"
  | "store_deadline"
  | "vocabulary_malformed"
  | "mcp_person_auth";

export abstract class BotError extends Error {
  abstract readonly code: ErrorCode;
}

/** A bad or missing environment variable. The message is the one line printed at start. */
export class ConfigError extends BotError {
  readonly code = "config_invalid";
  constructor(
    readonly variable: string,
    readonly expected: string,
    received: string | undefined,
  ) {
    super(`${variable}: ${expected}${received === undefined ? " (it is not set)" : ` (got "${received}")`}`);
    this.name = "ConfigError";
  }
}

/**
 * An HTTP MCP server without OAuth settings answered 401 naming its protected-resource metadata:
 * it wants each person to sign in, so it becomes a `user` server (connected per person).
 */
export class PersonAuthNeededError extends BotError {
  readonly code = "mcp_person_auth";
  constructor(readonly url: string) {
    super(`the MCP server at ${url} asks each person to sign in (OAuth)`);
    this.name = "PersonAuthNeededError";
  }
}

/** A bad MCP servers file (MCP_CONFIG). The message is the one line printed at start: the file, the server, the field. */
export class McpConfigError extends BotError {
  readonly code = "config_invalid";
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = "McpConfigError";
  }
}

/**
 * Why a model call failed, for a person: what failed (`cause`), what to change (`fix`, a clause
 * that starts with a verb, or "" when nothing is known), and whether trying again can help.
 */
export interface ModelFailure {
  readonly cause: string;
  readonly fix: string;
  readonly retryable: boolean;
  /** The HTTP status the server answered, when it answered one. */
  readonly status?: number;
  /** How long the server asked to be left alone (`retry-after-ms`, `retry-after`), when it asked for a pause. */
  readonly retryAfterMs?: number;
}

/** The model server could not be reached or kept failing after retries. A bare string is a cause with no known fix, worth retrying. */
export class ModelUnavailableError extends BotError {
  readonly code = "model_unavailable";
  readonly failure: ModelFailure;
  /** The cause and the fix in one phrase, for logs and records. */
  readonly reason: string;
  readonly status?: number;
  constructor(failure: ModelFailure | string) {
    const described = typeof failure === "string" ? { cause: failure, fix: "", retryable: true } : failure;
    const reason = described.fix === "" ? described.cause : `${described.cause}: ${described.fix}`;
    super(`The model is unavailable: ${reason}`);
    this.name = "ModelUnavailableError";
    this.failure = described;
    this.reason = reason;
    if (described.status !== undefined) this.status = described.status;
  }
}

export class StoreUrlError extends BotError {
  readonly code = "store_url_invalid";
  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(`STORE_URL: ${reason} (got "${url}")`);
    this.name = "StoreUrlError";
  }
}

export class StoreUnavailableError extends BotError {
  readonly code = "store_unavailable";
  constructor(reason: string) {
    super(`The store is unavailable: ${reason}`);
    this.name = "StoreUnavailableError";
  }
}

/** The approval key file (APPROVAL_KEY_FILE) can't be read, created or trusted; approvals wait until it can. */
export class ApprovalKeyError extends BotError {
  readonly code = "approval_key_unavailable";
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`The approval key file ${path} ${reason}`);
    this.name = "ApprovalKeyError";
  }
}

/** A queued item this process can't show (no presenter for its surface here): it is not run, and stays unfinished to be tried again. */
export class SurfaceUnavailableError extends BotError {
  readonly code = "surface_unavailable";
  constructor(
    readonly surface: string,
    readonly key: string,
  ) {
    super(`no ${surface} surface in this process to show ${key}; it stays unfinished and is tried again`);
    this.name = "SurfaceUnavailableError";
  }
}

/** A chat message could not be recorded or queued (the store or the queue did not answer): the platform should deliver it again. */
export class IntakeUnavailableError extends BotError {
  readonly code = "intake_unavailable";
  constructor(
    readonly receipt: string,
    reason: string,
  ) {
    super(`the message ${receipt} could not be recorded (${reason}); it is for the platform to deliver again`);
    this.name = "IntakeUnavailableError";
  }
}

/** An explorer request's body that can't be taken: the status it is answered with, and why. */
export class BodyError extends BotError {
  readonly code = "request_body_invalid";
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
    this.name = "BodyError";
  }
}

/** The run stopped at a checkpoint because its process is shutting down; it is not finished. */
export class RunInterruptedError extends BotError {
  readonly code = "run_interrupted";
  constructor(readonly runId: string) {
    super(`run ${runId} stopped at its checkpoint`);
    this.name = "RunInterruptedError";
  }
}

/** A tool call passed its timeout; the registry turns it into an observation for the model. */
export class ToolTimeout extends BotError {
  readonly code = "tool_timeout";
}

/** A store operation got no answer within its deadline (the operation goes on unobserved). */
export class DeadlineError extends BotError {
  readonly code = "store_deadline";
}

/** js-tiktoken's rank file is not in the format the tokenizer reads. */
export class MalformedRanks extends BotError {
  readonly code = "vocabulary_malformed";
  constructor(detail: string) {
    super(`js-tiktoken's rank file is not in the format the tokenizer reads (${detail}); the tokenizer needs an update`);
  }
}
