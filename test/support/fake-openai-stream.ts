// How the fake OpenAI server answers a `stream: true` request: the scripted chat completion cut
// into the chunks the real API sends, typed as the openai package's ChatCompletionChunk so the
// compiler holds the fake to the real shape, as server-sent events. Text goes in token-sized
// pieces (cut mid-word), tool-call arguments in fragments cut mid-JSON, usage in a last chunk of
// its own (only when `stream_options.include_usage` asked for it), then `[DONE]`.
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";

type Delta = ChatCompletionChunk.Choice.Delta;
type DeltaToolCall = ChatCompletionChunk.Choice.Delta.ToolCall;
type FinishReason = ChatCompletionChunk.Choice["finish_reason"];

/** What a scripted completion body holds that a stream carries. */
interface CompletionBody {
  readonly id?: string;
  readonly model?: string;
  readonly created?: number;
  readonly choices: ReadonlyArray<{ readonly message: CompletionMessage; readonly finish_reason?: FinishReason }>;
  readonly usage?: CompletionUsage;
}

interface CompletionMessage {
  readonly content?: string | null;
  readonly tool_calls?: ReadonlyArray<{
    readonly id?: string;
    readonly function?: { readonly name?: string; readonly arguments?: unknown };
  }>;
}

/** Text goes in pieces this long, about a token. */
const TEXT_FRAGMENT = 4;
/** Tool-call arguments go in fragments this long: short enough to cut every JSON value of a test in two. */
const ARGUMENT_FRAGMENT = 5;

/** The body as a completion a stream can carry, or undefined (a string, an error, empty choices: sent as is). */
export function streamableCompletion(body: unknown): CompletionBody | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const choices = (body as { choices?: unknown }).choices;
  if (!Array.isArray(choices) || choices.length === 0) return undefined;
  const message = (choices[0] as { message?: unknown }).message;
  return typeof message === "object" && message !== null ? (body as CompletionBody) : undefined;
}

/** The chunks, in order, as the real API sends them for this completion. */
export function completionChunks(completion: CompletionBody, includeUsage: boolean): ChatCompletionChunk[] {
  const choice = completion.choices[0]!;
  const { content, tool_calls: calls = [] } = choice.message;
  const envelope = {
    id: completion.id ?? "chatcmpl-fake",
    object: "chat.completion.chunk" as const,
    created: completion.created ?? 1_700_000_000,
    model: completion.model ?? "fake-model",
    ...(includeUsage ? { usage: null } : {}),
  };
  const chunk = (delta: Delta, finishReason: FinishReason = null): ChatCompletionChunk => ({
    ...envelope,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  const deltas: Delta[] = [];
  const pieces = typeof content === "string" ? fragments(content, TEXT_FRAGMENT) : [];
  // The first delta names the role; a text reply starts with empty content, a reply of calls alone with null.
  deltas.push({ role: "assistant", content: typeof content === "string" ? "" : null, refusal: null });
  for (const piece of pieces) deltas.push({ content: piece });
  calls.forEach((call, index) => {
    const args = call.function?.arguments;
    const text = typeof args === "string" ? args : args === undefined || args === null ? "" : JSON.stringify(args);
    const opening: DeltaToolCall = {
      index,
      ...(call.id ? { id: call.id } : {}),
      type: "function",
      function: { name: call.function?.name ?? "", arguments: "" },
    };
    deltas.push({ tool_calls: [opening] });
    for (const fragment of fragments(text, ARGUMENT_FRAGMENT)) deltas.push({ tool_calls: [{ index, function: { arguments: fragment } }] });
  });
  const chunks = deltas.map((delta) => chunk(delta));
  chunks.push(chunk({}, choice.finish_reason ?? (calls.length > 0 ? "tool_calls" : "stop")));
  if (includeUsage && completion.usage) chunks.push({ ...envelope, choices: [], usage: completion.usage });
  return chunks;
}

/** One server-sent event per chunk, and the end marker. */
export function sseEvent(chunk: ChatCompletionChunk | "[DONE]"): string {
  return `data: ${chunk === "[DONE]" ? chunk : JSON.stringify(chunk)}\n\n`;
}

function fragments(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}
