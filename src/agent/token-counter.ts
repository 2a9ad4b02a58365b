// Token counting with js-tiktoken, matched to the model family. Each message is encoded once:
// counts are kept by message identity and by content, so a step costs work in proportion to
// what it added, and history loaded again for the next run is not encoded again.
import { Tokenizer, type EncodingName } from "./tokenizer.js";
import type { ChatMessage, ToolSchema } from "./types.js";

/** Per-message framing tokens in the chat format (role, separators). */
const MESSAGE_OVERHEAD = 4;
const REPLY_PRIMING = 3;
const CONTENT_CACHE_LIMIT = 20_000;
const MAX_CACHED_TEXT_CHARS = 64 * 1024;

/** `o200k_base` for the gpt-4o / 4.1 / 5 / o-series family, `cl100k_base` for anything else. */
export function encodingForModel(model: string): EncodingName {
  const bare = model.toLowerCase().split("/").pop() ?? "";
  return /^(gpt-4o|gpt-4\.1|gpt-5|chatgpt-4o|o\d)/.test(bare) ? "o200k_base" : "cl100k_base";
}

const CONTEXT_WINDOWS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-5/, 400_000],
  [/^(gpt-4o|chatgpt-4o|gpt-4-turbo)/, 128_000],
  [/^o\d/, 200_000],
  [/^gpt-4-32k/, 32_768],
  [/^gpt-4/, 8_192],
  [/^gpt-3\.5-turbo/, 16_385],
  [/^(llama-?3|qwen2\.5|qwen3|mistral-large|mixtral|deepseek)/, 32_768],
];

/** Local servers often run small windows; the fallback is cautious and AGENT_CONTEXT_TOKENS overrides it. */
export const FALLBACK_CONTEXT_WINDOW = 8_192;

export function defaultContextWindow(model: string): number {
  const bare = model.toLowerCase().split("/").pop() ?? "";
  return CONTEXT_WINDOWS.find(([pattern]) => pattern.test(bare))?.[1] ?? FALLBACK_CONTEXT_WINDOW;
}

export class TokenCounter {
  private readonly tokenizer: Tokenizer;
  private readonly byMessage = new WeakMap<ChatMessage, number>();
  /** Counts by text in two generations (see remember): bounded, and texts still in use survive. */
  private recentTexts = new Map<string, number>();
  private olderTexts = new Map<string, number>();
  private readonly byTools = new WeakMap<readonly ToolSchema[], number>();

  constructor(readonly encoding: EncodingName) {
    this.tokenizer = Tokenizer.for(encoding);
  }

  static forModel(model: string): TokenCounter {
    return new TokenCounter(encodingForModel(model));
  }

  countText(text: string): number {
    if (text.length === 0) return 0;
    const cached = this.recentTexts.get(text);
    if (cached !== undefined) return cached;
    const count = this.olderTexts.get(text) ?? this.tokenizer.count(text);
    this.remember(text, count);
    return count;
  }

  /**
   * When the newer generation is full it becomes the older one and the oldest is dropped: O(1)
   * per text, where evicting entries one by one from a full Map (keys().next()) costs 3–20 µs
   * each, and a text found in the older generation (reloaded history) moves back to the newer.
   */
  private remember(text: string, count: number): void {
    // Huge texts (a pasted log in a 1M-token window) would pin megabytes each; they are counted once per message anyway.
    if (text.length > MAX_CACHED_TEXT_CHARS) return;
    if (this.recentTexts.size >= CONTENT_CACHE_LIMIT / 2) {
      this.olderTexts = this.recentTexts;
      this.recentTexts = new Map();
    }
    this.recentTexts.set(text, count);
  }

  countMessage(message: ChatMessage): number {
    const cached = this.byMessage.get(message);
    if (cached !== undefined) return cached;
    let count = MESSAGE_OVERHEAD + this.countText(message.content ?? "");
    if (message.role === "assistant") {
      for (const call of message.toolCalls ?? []) count += MESSAGE_OVERHEAD + this.countText(call.name) + this.countText(call.arguments);
    }
    this.byMessage.set(message, count);
    return count;
  }

  countMessages(messages: readonly ChatMessage[]): number {
    let total = REPLY_PRIMING;
    for (const message of messages) total += this.countMessage(message);
    return total;
  }

  /** Tool schemas as the server sees them; counted once per schema list. */
  countTools(tools: readonly ToolSchema[]): number {
    if (tools.length === 0) return 0;
    const cached = this.byTools.get(tools);
    if (cached !== undefined) return cached;
    const count = this.countText(JSON.stringify(tools));
    this.byTools.set(tools, count);
    return count;
  }

  /** Cuts text to at most maxTokens tokens. */
  truncate(text: string, maxTokens: number): { text: string; truncated: boolean } {
    // A token is at least one character, so short text needs no encoding at all.
    if (text.length <= maxTokens) return { text, truncated: false };
    // Counting is cheap (pieces seen before cost nothing) and its result is kept for when the text enters the messages.
    if (this.countText(text) <= maxTokens) return { text, truncated: false };
    return { text: this.tokenizer.decode(this.tokenizer.encode(text).slice(0, maxTokens)), truncated: true };
  }
}
