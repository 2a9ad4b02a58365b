// The model seam and the messages it speaks, shared by the agent loop and memory (fact
// extraction): below both, importing nothing of either.
import type { UserContent } from "./content.js";

// ---- Messages (OpenAI chat shape, our own names) ----

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** Raw text as the model produced it; it may not be JSON at all. */
  readonly arguments: string;
}

export type ChatMessage =
  | { readonly role: "system"; readonly content: string }
  /** Most user messages are a string; one that brings files is a list of parts. */
  | { readonly role: "user"; readonly content: UserContent }
  | { readonly role: "assistant"; readonly content: string | null; readonly toolCalls?: readonly ToolCall[] }
  | { readonly role: "tool"; readonly toolCallId: string; readonly content: string };

// ---- Model seam ----

export interface ToolSchema {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly parameters: Record<string, unknown>;
}

export interface ModelRequest {
  readonly messages: readonly ChatMessage[];
  /** Empty when the model must answer in text (the graceful summary, compaction). */
  readonly tools: readonly ToolSchema[];
  /** Ask for a JSON object reply (fact extraction). */
  readonly responseFormat?: "json_object";
  /** Told before each retry of a failed try, so a person waiting sees why. Must not throw. */
  readonly onRetry?: (retry: ModelRetry) => void;
  /**
   * Given, the reply is streamed: each piece as it arrives, then the same ModelReply as without it.
   * A try that fails after streaming some is followed by a `restart` before the next try's pieces.
   * Must not throw.
   */
  readonly onDelta?: (delta: ModelDelta) => void;
  /** Told when the call moves to another endpoint (a model with fallbacks), before that endpoint is asked. Must not throw. */
  readonly onSwitch?: (change: ModelSwitch) => void;
  /** Epoch ms (Date.now's clock) by which the call must be over, the run's deadline: no wait between tries that ends after it. */
  readonly deadline?: number;
  /**
   * Given, the caller can make its messages fit a smaller context window (fold, compact) before an
   * endpoint with that window is asked: resolves to the messages to send, or undefined when they
   * can't fit. Must reject only when `signal` aborts.
   */
  readonly fitWindow?: (contextTokens: number, signal: AbortSignal) => Promise<readonly ChatMessage[] | undefined>;
}

/** A call moved from one endpoint to another (src/contracts/model-endpoint.ts names them). */
export interface ModelSwitch {
  readonly from: string;
  readonly to: string;
  /** Why `from` was left, for a person: "429 from api.openai.com", "resting after 3 failures in a row (…)". */
  readonly cause: string;
}

/** A piece of a reply as the server streams it. */
export type ModelDelta =
  | { readonly kind: "text"; readonly text: string }
  /** A tool call's pieces by its index in the reply: its id and name once, its arguments' text in fragments (JSON cut anywhere). */
  | { readonly kind: "tool_call"; readonly index: number; readonly id?: string; readonly name?: string; readonly arguments: string }
  /** The try that streamed so far failed and another starts (a retry, another endpoint): what it streamed is void. */
  | { readonly kind: "restart"; readonly cause: string };

/** A try failed in a way worth retrying; the next one starts after `waitMs`. */
export interface ModelRetry {
  /** 1 for the first retry. */
  readonly retry: number;
  /** How many retries there will be at most (OPENAI_MAX_RETRIES). */
  readonly of: number;
  /** What failed, for a person: "could not connect to http://…/v1 (connection refused: ECONNREFUSED)". */
  readonly cause: string;
  readonly waitMs: number;
}

export interface TokenUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Of the prompt tokens, those the server read from its prompt cache (billed lower), when it said so. */
  readonly cachedTokens?: number;
}

export interface ModelReply {
  readonly content: string | null;
  readonly toolCalls: readonly ToolCall[];
  /** Present when the server reported it. */
  readonly usage?: TokenUsage;
  /** The endpoint that answered (`model@base URL`), when the model has more than one. */
  readonly endpoint?: string;
}

/**
 * One method: send the messages, get one reply. Implementations retry what is worth
 * retrying and throw `ModelUnavailableError` (src/errors.ts) when they give up.
 * Must reject promptly once `signal` aborts.
 */
export interface Model {
  readonly name: string;
  complete(request: ModelRequest, signal: AbortSignal): Promise<ModelReply>;
}
