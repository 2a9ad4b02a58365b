// The model seam and the messages it speaks, shared by the agent loop and memory (fact
// extraction): below both, importing nothing of either.

// ---- Messages (OpenAI chat shape, our own names) ----

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** Raw text as the model produced it; it may not be JSON at all. */
  readonly arguments: string;
}

export type ChatMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string }
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
