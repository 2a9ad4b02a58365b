// The one home for thrown errors. Failures the model can act on are observations, not
// exceptions; these are for misconfiguration, unavailable services and bugs.

export type ErrorCode =
  | "config_invalid"
  | "model_unavailable"
  | "store_unavailable"
  | "store_url_invalid"
  | "approval_key_unavailable"
  | "surface_unavailable"
  | "intake_unavailable";

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

/** The model server could not be reached or kept failing after retries. */
export class ModelUnavailableError extends BotError {
  readonly code = "model_unavailable";
  constructor(
    readonly reason: string,
    readonly status?: number,
  ) {
    super(`The model is unavailable: ${reason}`);
    this.name = "ModelUnavailableError";
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
