// A model that plays a script: one scripted reply per complete() call, recording every
// request it was sent. Asked with `onDelta`, it streams the reply (its text word by word, then
// its calls) before it settles, as the real client does. For unit tests of the loop and for benchmarks.
import { replyDeltas, wordByWord } from "../../src/agent/models/reply-deltas.js";
import type { Model, ModelReply, ModelRequest, TokenUsage, ToolCall } from "../../src/contracts/types.js";

export interface ScriptedCall {
  readonly name: string;
  /** An object is sent as its JSON text; a string is sent as is (it may be broken JSON on purpose). */
  readonly args: string | object;
  /** Generated (`call_1`, `call_2`…, unique per model) when left out. */
  readonly id?: string;
}

export interface ScriptedReply {
  readonly text?: string | null;
  readonly calls?: readonly ScriptedCall[];
  readonly usage?: TokenUsage;
  /** The call rejects with this error (after `delayMs`, when both are set). */
  readonly error?: Error;
  /** Waits this long before settling; rejects as soon as the signal aborts. */
  readonly delayMs?: number;
  /** Never settles until the signal aborts. */
  readonly never?: true;
  /** Streamed first by a try that failed (then a restart) when the call is asked with `onDelta`: a retry mid-stream. */
  readonly falseStart?: string;
}

/** A reply, or a function that builds one from what the model was sent (`callIndex` is 0-based). */
export type ScriptStep = ScriptedReply | ((request: ModelRequest, callIndex: number) => ScriptedReply);

export interface ScriptedModelOptions {
  readonly name?: string;
  /** Used for every call after the script ran out; without it such a call rejects. */
  readonly whenExhausted?: ScriptStep;
}

export class ScriptedModel implements Model {
  readonly name: string;
  /** Every request received, in order, with its own copy of the messages and tools. */
  readonly requests: ModelRequest[] = [];
  private readonly script: readonly ScriptStep[];
  private readonly whenExhausted: ScriptStep | undefined;
  private generatedIds = 0;

  constructor(script: readonly ScriptStep[], options: ScriptedModelOptions = {}) {
    this.script = [...script];
    this.name = options.name ?? "scripted";
    this.whenExhausted = options.whenExhausted;
  }

  /** Scripted replies not used yet (not counting `whenExhausted`). */
  get remaining(): number {
    return Math.max(0, this.script.length - this.requests.length);
  }

  async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelReply> {
    const callIndex = this.requests.length;
    this.requests.push({ ...request, messages: [...request.messages], tools: [...request.tools] });
    signal.throwIfAborted();
    const step = this.script[callIndex] ?? this.whenExhausted;
    if (step === undefined) {
      throw new Error(
        `ScriptedModel "${this.name}": the script has ${this.script.length} replies and call ${callIndex + 1} asked for another`,
      );
    }
    const scripted = typeof step === "function" ? step(request, callIndex) : step;
    const reply: ModelReply = {
      content: scripted.text ?? null,
      toolCalls: (scripted.calls ?? []).map((call) => this.toToolCall(call)),
      ...(scripted.usage ? { usage: scripted.usage } : {}),
    };
    // What it has is streamed before it waits or fails: a Stop or an error can come mid-stream.
    if (request.onDelta) streamTo(request.onDelta, scripted, reply);
    if (scripted.never) await abortOf(signal);
    if (scripted.delayMs !== undefined) await delay(scripted.delayMs, signal);
    if (scripted.error) throw scripted.error;
    return reply;
  }

  private toToolCall(call: ScriptedCall): ToolCall {
    this.generatedIds += 1;
    return {
      id: call.id ?? `call_${this.generatedIds}`,
      name: call.name,
      arguments: typeof call.args === "string" ? call.args : JSON.stringify(call.args),
    };
  }
}

function streamTo(onDelta: NonNullable<ModelRequest["onDelta"]>, scripted: ScriptedReply, reply: ModelReply): void {
  if (scripted.falseStart !== undefined) {
    for (const piece of wordByWord(scripted.falseStart)) onDelta({ kind: "text", text: piece });
    onDelta({ kind: "restart", cause: "the scripted try failed mid-stream" });
  }
  for (const delta of replyDeltas(reply, wordByWord)) onDelta(delta);
}

/** Rejects with the signal's reason once it aborts; never resolves. */
function abortOf(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** Resolves after `ms`; rejects with the signal's reason as soon as it aborts. */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

export function say(text: string, usage?: TokenUsage): ScriptedReply {
  return usage ? { text, usage } : { text };
}

export function call(name: string, args: string | object, id?: string): ScriptedReply {
  return { calls: [id === undefined ? { name, args } : { name, args, id }] };
}

/** Several tool calls in one reply: `calls(call("a", {}), call("b", {}))`. */
export function calls(...replies: readonly ScriptedReply[]): ScriptedReply {
  return { calls: replies.flatMap((reply) => reply.calls ?? []) };
}
