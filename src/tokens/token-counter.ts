// Token counting in js-tiktoken's encodings, matched to the model family. Each message is
// encoded once: counts are kept by message identity and by content, so a step costs work in
// proportion to what it added, and history loaded again for the next run is not encoded again.
import { type Cut, Tokenizer, type EncodingName } from "./tokenizer.js";
import { TwoGenerationCache } from "./two-generation-cache.js";

/** A message in the chat format, as far as its tokens go: the agent's messages are of this shape. */
export interface CountedMessage {
  readonly role: string;
  readonly content: string | null;
  /** An assistant's calls: their names and arguments count. */
  readonly toolCalls?: ReadonlyArray<{ readonly name: string; readonly arguments: string }>;
  /** A tool result's call id: framing, within MESSAGE_OVERHEAD. */
  readonly toolCallId?: string;
}

/** Per-message framing tokens in the chat format (role, separators). */
const MESSAGE_OVERHEAD = 4;
const REPLY_PRIMING = 3;
const TEXT_CACHE_ENTRIES = 10_000;
/** Messages longer than this are counted a slice at a time, giving the event loop back in between. */
const YIELD_ABOVE_CHARS = 16 * 1_024;
/** Up to this many characters per allowed token, truncate counts the whole text before it cuts. */
const COUNT_FIRST_CHARS_PER_TOKEN = 4;
/** Per generation: the text cache holds at most ~16 MB of UTF-16 keys. */
const TEXT_CACHE_CHARS = 4_000_000;

export interface Truncated {
  readonly text: string;
  readonly truncated: boolean;
}

/** `o200k_base` for the gpt-4o / 4.1 / 5 / o-series family, `cl100k_base` for anything else. */
export function encodingForModel(model: string): EncodingName {
  const bare = model.toLowerCase().split("/").pop() ?? "";
  return /^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o\d)/.test(bare) ? "o200k_base" : "cl100k_base";
}

const CONTEXT_WINDOWS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-5/, 400_000],
  [/^(gpt-4o|gpt-4\.5|chatgpt-4o|gpt-4-turbo)/, 128_000],
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

/**
 * A byte-level tokenizer makes at most one token per UTF-8 byte (not per character: one CJK
 * character or emoji can be several tokens), so text of no more bytes than the cap fits without
 * encoding; a UTF-16 unit is at most 3 bytes, so a short enough text needs no byte count.
 */
function fitsUnencoded(text: string, maxTokens: number): boolean {
  return text.length <= maxTokens && (text.length * 3 <= maxTokens || Buffer.byteLength(text, "utf8") <= maxTokens);
}

/**
 * Text of up to a few times the cap is counted first (pieces seen before cost nothing, and the count
 * is kept for when the text enters the messages); longer text goes straight to the cut, which
 * encodes only the prefix it keeps.
 */
function countsFirst(text: string, maxTokens: number): boolean {
  return text.length <= COUNT_FIRST_CHARS_PER_TOKEN * maxTokens;
}

export class TokenCounter {
  private loaded: Tokenizer | undefined;
  private readonly byMessage = new WeakMap<CountedMessage, number>();
  /** Counts by text: bounded, and texts still in use survive. Huge texts are counted once per message instead. */
  private readonly texts = new TwoGenerationCache<number>(TEXT_CACHE_ENTRIES, TEXT_CACHE_CHARS);
  private readonly byTools = new WeakMap<readonly unknown[], number>();

  constructor(readonly encoding: EncodingName) {}

  /** Resolves once the tables are built (a slice at a time, see Tokenizer.prepare): counting after it never blocks on the build. */
  whenReady(): Promise<void> {
    return Tokenizer.prepare(this.encoding);
  }

  /** Built on first use, not at construction: the start does not wait for the tables (see Tokenizer.prepare). */
  private get tokenizer(): Tokenizer {
    this.loaded ??= Tokenizer.for(this.encoding);
    return this.loaded;
  }

  static forModel(model: string): TokenCounter {
    return new TokenCounter(encodingForModel(model));
  }

  /** Builds the model's tokenizer in the background, a slice at a time, so the first count does not wait for it. */
  static prepare(model: string): Promise<void> {
    return Tokenizer.prepare(encodingForModel(model));
  }

  countText(text: string): number {
    if (text.length === 0) return 0;
    const cached = this.texts.get(text);
    if (cached !== undefined) return cached;
    const count = this.tokenizer.count(text);
    this.texts.set(text, count);
    return count;
  }

  /** As countText, giving the event loop back while it counts a long text. */
  async countTextYielding(text: string): Promise<number> {
    if (text.length === 0) return 0;
    const cached = this.texts.get(text);
    if (cached !== undefined) return cached;
    const count = await this.tokenizer.countYielding(text);
    this.texts.set(text, count);
    return count;
  }

  countMessage(message: CountedMessage): number {
    const cached = this.byMessage.get(message);
    if (cached !== undefined) return cached;
    let count = MESSAGE_OVERHEAD + this.countText(message.content ?? "");
    if (message.role === "assistant") {
      for (const call of message.toolCalls ?? []) count += MESSAGE_OVERHEAD + this.countText(call.name) + this.countText(call.arguments);
    }
    this.byMessage.set(message, count);
    return count;
  }

  /** Counts messages not seen before while giving the event loop back, so later counts of them are free. */
  async countMessagesYielding(messages: readonly CountedMessage[]): Promise<void> {
    for (const message of messages) {
      // Short texts are counted in one go: a turn of the event loop per message would cost more than the count.
      if (!this.byMessage.has(message) && (message.content?.length ?? 0) > YIELD_ABOVE_CHARS)
        await this.countTextYielding(message.content!);
      this.countMessage(message);
    }
  }

  countMessages(messages: readonly CountedMessage[]): number {
    let total = REPLY_PRIMING;
    for (const message of messages) total += this.countMessage(message);
    return total;
  }

  /** Tool schemas as the server sees them (their JSON); counted once per schema list. */
  countTools(tools: readonly unknown[]): number {
    if (tools.length === 0) return 0;
    const cached = this.byTools.get(tools);
    if (cached !== undefined) return cached;
    const count = this.countText(JSON.stringify(tools));
    this.byTools.set(tools, count);
    return count;
  }

  /** Cuts text to at most maxTokens tokens, encoding only the part it keeps. */
  truncate(text: string, maxTokens: number): Truncated {
    if (fitsUnencoded(text, maxTokens)) return { text, truncated: false };
    const known = this.texts.get(text) ?? (countsFirst(text, maxTokens) ? this.countText(text) : undefined);
    if (known !== undefined && known <= maxTokens) return { text, truncated: false };
    return this.remembered(text, this.tokenizer.cut(text, maxTokens));
  }

  /** As truncate, giving the event loop back while it counts or encodes a long text. */
  async truncateYielding(text: string, maxTokens: number): Promise<Truncated> {
    if (fitsUnencoded(text, maxTokens)) return { text, truncated: false };
    const known = this.texts.get(text) ?? (countsFirst(text, maxTokens) ? await this.countTextYielding(text) : undefined);
    if (known !== undefined && known <= maxTokens) return { text, truncated: false };
    return this.remembered(text, await this.tokenizer.cutYielding(text, maxTokens));
  }

  /** A text kept whole keeps the count its cut found, for when it enters the messages. */
  private remembered(text: string, cut: Cut): Truncated {
    if (cut.truncated) return { text: cut.text, truncated: true };
    if (cut.count !== undefined) this.texts.set(text, cut.count);
    return { text, truncated: false };
  }
}
