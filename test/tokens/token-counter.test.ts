import { getEncoding } from "js-tiktoken";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defaultContextWindow, encodingForModel, FALLBACK_CONTEXT_WINDOW, TokenCounter } from "../../src/tokens/token-counter.js";
import { Tokenizer } from "../../src/tokens/tokenizer.js";
import { ToolRegistry } from "../../src/agent/tools/tool-registry.js";
import type { ChatMessage, Tool, ToolSchema } from "../../src/contracts/types.js";

const RUSSIAN = "Привет, как дела? Сегодня хорошая погода.";
const WORDS = "the quick brown fox jumps over the lazy dog and keeps running through the field ";

/** Every text the counter hands to the tokenizer. */
function spyOnEncode() {
  const count = vi.spyOn(Tokenizer.prototype, "count");
  const cut = vi.spyOn(Tokenizer.prototype, "cut");
  return { texts: () => [...count.mock.calls, ...cut.mock.calls].map(([text]) => text) };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("encoding per model family", () => {
  it.each([
    ["gpt-4o", "o200k_base"],
    ["gpt-4o-mini", "o200k_base"],
    ["GPT-4o", "o200k_base"],
    ["gpt-4.1", "o200k_base"],
    ["gpt-4.1-nano", "o200k_base"],
    ["gpt-4.5-preview", "o200k_base"],
    ["gpt-5", "o200k_base"],
    ["gpt-5-mini", "o200k_base"],
    ["o1", "o200k_base"],
    ["o3", "o200k_base"],
    ["o4-mini", "o200k_base"],
    ["openai/gpt-4o", "o200k_base"],
    ["llama3", "cl100k_base"],
    ["llama3.1:8b", "cl100k_base"],
    ["meta/llama3", "cl100k_base"],
    ["gpt-4", "cl100k_base"],
    ["gpt-3.5-turbo", "cl100k_base"],
    ["qwen2.5:7b", "cl100k_base"],
    ["", "cl100k_base"],
  ] as const)("%s uses %s", (model, encoding) => {
    expect(encodingForModel(model)).toBe(encoding);
    expect(TokenCounter.forModel(model).encoding).toBe(encoding);
  });

  it("counts with the encoder it names, which differ on non-English text", () => {
    const o200k = TokenCounter.forModel("gpt-4o").countText(RUSSIAN);
    const cl100k = TokenCounter.forModel("llama3").countText(RUSSIAN);
    expect(o200k).toBe(getEncoding("o200k_base").encode(RUSSIAN).length);
    expect(cl100k).toBe(getEncoding("cl100k_base").encode(RUSSIAN).length);
    expect(o200k).toBeLessThan(cl100k);
  });
});

describe("counting messages", () => {
  const counter = () => new TokenCounter("o200k_base");
  const tokens = (text: string) => getEncoding("o200k_base").encode(text).length;

  it("counts nothing for empty text", () => {
    expect(counter().countText("")).toBe(0);
  });

  it("adds 4 framing tokens per message and 3 for the reply priming", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "You are helpful." },
      { role: "user", content: "What is 2+2?" },
    ];
    const tokenCounter = counter();
    expect(tokenCounter.countMessage(messages[0]!)).toBe(4 + tokens("You are helpful."));
    expect(tokenCounter.countMessages(messages)).toBe(3 + 4 + tokens("You are helpful.") + 4 + tokens("What is 2+2?"));
    expect(tokenCounter.countMessages([])).toBe(3);
  });

  it("counts each tool call's name and arguments, and a null content as nothing", () => {
    const message: ChatMessage = {
      role: "assistant",
      content: null,
      toolCalls: [
        { id: "c1", name: "calculator", arguments: '{"expression":"2+2"}' },
        { id: "c2", name: "current_time", arguments: "{}" },
      ],
    };
    const expected = 4 + (4 + tokens("calculator") + tokens('{"expression":"2+2"}')) + (4 + tokens("current_time") + tokens("{}"));
    expect(counter().countMessage(message)).toBe(expected);
  });

  it("counts a tool message by its content", () => {
    expect(counter().countMessage({ role: "tool", toolCallId: "c1", content: "4" })).toBe(4 + tokens("4"));
  });

  it("counts tool schemas as their JSON, and no tools as nothing", () => {
    const schemas: ToolSchema[] = [
      { name: "calculator", description: "arithmetic", parameters: { type: "object", properties: { expression: { type: "string" } } } },
    ];
    expect(counter().countTools(schemas)).toBe(tokens(JSON.stringify(schemas)));
    expect(counter().countTools([])).toBe(0);
  });
});

describe("cached counts", () => {
  it("encodes a message once, however often it is counted", () => {
    const tokenCounter = new TokenCounter("o200k_base");
    const message: ChatMessage = { role: "user", content: "a message counted again and again" };
    const encode = spyOnEncode();
    const first = tokenCounter.countMessage(message);
    const callsForFirst = encode.texts().length;
    expect(tokenCounter.countMessages([message, message])).toBe(3 + 2 * first);
    expect(encode.texts()).toHaveLength(callsForFirst);
  });

  it("does not encode history loaded again as new message objects", () => {
    const tokenCounter = new TokenCounter("o200k_base");
    const load = (): ChatMessage[] => [
      { role: "user", content: `first question ${"x".repeat(3)}` },
      { role: "assistant", content: `first answer ${"y".repeat(3)}` },
    ];
    const before = tokenCounter.countMessages(load());
    const encode = spyOnEncode();
    expect(tokenCounter.countMessages(load())).toBe(before);
    expect(encode.texts()).toEqual([]);
  });

  it("encodes only what a step added", () => {
    const tokenCounter = new TokenCounter("o200k_base");
    const history: ChatMessage[] = [
      { role: "system", content: "system prompt" },
      { role: "user", content: "question" },
    ];
    tokenCounter.countMessages(history);
    const encode = spyOnEncode();
    tokenCounter.countMessages([...history, { role: "tool", toolCallId: "c1", content: "a brand new observation" }]);
    expect(encode.texts()).toEqual(["a brand new observation"]);
  });

  it("stays correct past its size limit and keeps texts that are still in use", () => {
    const tokenCounter = new TokenCounter("o200k_base");
    const hot = "the conversation's first message, loaded again for every run";
    const expected = tokenCounter.countText(hot);
    const encode = spyOnEncode();
    for (let round = 0; round < 3; round++) {
      for (let index = 0; index < 8_000; index++) tokenCounter.countText(`text ${round}-${index}`);
      expect(tokenCounter.countText(hot)).toBe(expected);
    }
    expect(encode.texts().filter((text) => text === hot)).toHaveLength(0);
    expect(tokenCounter.countText("text 0-0")).toBe(getEncoding("o200k_base").encode("text 0-0").length);
  });

  it("counts a tool list once", () => {
    const tokenCounter = new TokenCounter("cl100k_base");
    const schemas: ToolSchema[] = [{ name: "t", description: "d", parameters: {} }];
    const first = tokenCounter.countTools(schemas);
    const encode = spyOnEncode();
    expect(tokenCounter.countTools(schemas)).toBe(first);
    expect(encode.texts()).toEqual([]);
  });

  it("keeps counts apart between counters of different encodings", () => {
    const o200k = new TokenCounter("o200k_base");
    const cl100k = new TokenCounter("cl100k_base");
    expect(o200k.countText(RUSSIAN)).not.toBe(cl100k.countText(RUSSIAN));
  });
});

describe("truncate", () => {
  const counter = new TokenCounter("o200k_base");
  const text = WORDS.repeat(20);
  const total = counter.countText(text);

  it("returns short text untouched without encoding it", () => {
    const encode = spyOnEncode();
    expect(counter.truncate("short", 5)).toEqual({ text: "short", truncated: false });
    expect(encode.texts()).toEqual([]);
  });

  it("cuts text with fewer characters than the cap when its characters take several tokens each", async () => {
    const rare = "龘".repeat(40);
    expect(rare.length).toBeLessThan(60);
    expect(getEncoding("o200k_base").encode(rare).length).toBeGreaterThan(60);
    for (const cut of [counter.truncate(rare, 60), await counter.truncateYielding(rare, 60)]) {
      expect(cut.truncated).toBe(true);
      expect(getEncoding("o200k_base").encode(cut.text).length).toBeLessThanOrEqual(60);
    }
  });

  it("keeps text of exactly the cap", () => {
    expect(counter.truncate(text, total)).toEqual({ text, truncated: false });
  });

  it("cuts text one token over the cap to the cap", () => {
    const cut = counter.truncate(text, total - 1);
    expect(cut.truncated).toBe(true);
    expect(new TokenCounter("o200k_base").countText(cut.text)).toBe(total - 1);
    expect(text.startsWith(cut.text)).toBe(true);
  });

  it("cuts to a prefix of the cap's length", () => {
    const cut = counter.truncate(text, 10);
    expect(cut.truncated).toBe(true);
    expect(getEncoding("o200k_base").encode(cut.text)).toHaveLength(10);
    expect(text.startsWith(cut.text)).toBe(true);
  });
});

describe("observation cap with a note", () => {
  const counter = new TokenCounter("o200k_base");
  const echo: Tool<object> = { name: "echo", description: "echo", schema: z.object({}), effect: "read", execute: async () => "" };
  const cap = 50;
  const registry = new ToolRegistry([echo], { defaultTimeoutMs: 1_000, observationTokens: cap, counter });
  const atCap = getEncoding("o200k_base").decode(getEncoding("o200k_base").encode(WORDS.repeat(10)).slice(0, cap));

  it("passes a result of exactly the cap through without a note", () => {
    expect(counter.countText(atCap)).toBe(cap);
    expect(registry.observation(atCap)).toBe(atCap);
  });

  it("cuts a result one token over the cap and says how much there was", () => {
    const over = `${atCap} extra`;
    const observation = registry.observation(over);
    const [kept, note] = observation.split("\n…");
    expect(kept).toBe(atCap);
    expect(note).toBe(`[truncated: the full result had ${over.length} characters; this shows the first ${cap} tokens]`);
  });

  it("encodes a result under the cap once, for the check and the count together", () => {
    const result = WORDS.repeat(3);
    expect(result.length).toBeGreaterThan(cap);
    expect(counter.countText(result)).toBeLessThanOrEqual(cap);
    const fresh = new TokenCounter("o200k_base");
    const freshRegistry = new ToolRegistry([echo], { defaultTimeoutMs: 1_000, observationTokens: cap, counter: fresh });
    const encode = spyOnEncode();
    const observation = freshRegistry.observation(result);
    expect(fresh.countMessage({ role: "tool", toolCallId: "c1", content: observation })).toBe(4 + counter.countText(result));
    const encodedLengths = encode.texts().map((text) => text.length);
    expect(encodedLengths.reduce((sum, length) => sum + length, 0)).toBeLessThanOrEqual(result.length);
  });

  it("writes large figures with separators", () => {
    const long = WORDS.repeat(100);
    expect(long.length).toBeGreaterThan(1_000);
    expect(
      registry
        .observation(long)
        .endsWith(`the full result had ${long.length.toLocaleString("en-US")} characters; this shows the first 50 tokens]`),
    ).toBe(true);
    expect(registry.observation(long)).toMatch(/had \d,\d{3} characters/);
  });
});

describe("text that spells a special token", () => {
  // The API encodes message text without special tokens, so "<|endoftext|>" in a tool result
  // or a question is ordinary text; it must neither throw nor count as one token.
  const text = "The tokenizer doc says a document ends with <|endoftext|> and a chat turn with <|im_end|>.";
  const plain = getEncoding("o200k_base").encode(text, [], []).length;

  it("is counted as plain text", () => {
    expect(new TokenCounter("o200k_base").countText(text)).toBe(plain);
  });

  it("is truncated as plain text", () => {
    const cut = new TokenCounter("o200k_base").truncate(text.repeat(4), 30);
    expect(cut.truncated).toBe(true);
    expect(getEncoding("o200k_base").encode(cut.text, [], [])).toHaveLength(30);
  });
});

describe("context window table", () => {
  it.each([
    ["gpt-4.1", 1_047_576],
    ["gpt-4.1-mini", 1_047_576],
    ["gpt-5", 400_000],
    ["gpt-4o", 128_000],
    ["gpt-4.5-preview", 128_000],
    ["gpt-4o-mini", 128_000],
    ["openai/gpt-4o", 128_000],
    ["gpt-4-turbo", 128_000],
    ["o3", 200_000],
    ["o4-mini", 200_000],
    ["gpt-4-32k", 32_768],
    ["gpt-4", 8_192],
    ["gpt-3.5-turbo", 16_385],
    ["llama3", 32_768],
    ["llama-3.1-70b", 32_768],
    ["qwen2.5:14b", 32_768],
  ] as const)("%s has a window of %i tokens", (model, window) => {
    expect(defaultContextWindow(model)).toBe(window);
  });

  it("falls back to a cautious window for a model it does not know", () => {
    expect(FALLBACK_CONTEXT_WINDOW).toBe(8_192);
    expect(defaultContextWindow("my-local-model")).toBe(FALLBACK_CONTEXT_WINDOW);
    expect(defaultContextWindow("")).toBe(FALLBACK_CONTEXT_WINDOW);
  });
});
