// A reply as an OpenAI-compatible server streams it: each chunk (as the openai SDK parsed it from
// the server-sent events) is checked, its pieces told to the caller as they come, and the chunks
// add up to the same ModelReply the whole reply makes (openai-reply.ts): the text, the calls with
// their full arguments, the usage the last chunk brings. Untrusted like the whole reply: a chunk
// not in the chat format fails the call, a tool-call piece that is not one is skipped.
import { z } from "zod";
import { ModelUnavailableError } from "../../errors.js";
import { argumentsText, fallbackCallId, notChatFormat, ToolArguments, Usage, usageOf } from "./openai-reply.js";
import type { ModelDelta, ModelReply, TokenUsage, ToolCall } from "../../contracts/types.js";

const Chunk = z.object({
  choices: z
    .array(
      z.object({
        index: z.number().nullish(),
        delta: z.object({ content: z.string().nullish(), tool_calls: z.array(z.unknown()).nullish() }).nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: Usage.nullish(),
});

/** A piece of a call: the first names it (id, name), the rest carry its arguments' text on (JSON cut anywhere). */
const CallPiece = z.object({
  // Some local servers leave the index out when each call comes whole in one piece: its place in the list then.
  index: z.number().int().nonnegative().nullish(),
  id: z.string().nullish(),
  type: z.literal("function").nullish(),
  function: z.object({ name: z.string().nullish(), arguments: ToolArguments }).nullish(),
});

interface CallDraft {
  id: string;
  name: string;
  arguments: string;
}

export class StreamedReply {
  private told = false;
  private text = "";
  /** The server sent content (even ""): the reply's content is text, not null, as in a whole reply. */
  private wrote = false;
  private readonly calls = new Map<number, CallDraft>();
  private usage: TokenUsage | undefined;
  private chunks = 0;
  private finished = false;

  constructor(
    private readonly onDelta: (delta: ModelDelta) => void,
    /** Makes the ids of calls the server sent without one unique (as for a whole reply). */
    private readonly callNumber: number,
    private readonly server: string,
  ) {}

  /** Some piece went to the caller: a failure from now on voids what it was told (a restart). */
  get streamedAny(): boolean {
    return this.told;
  }

  /** One chunk; throws `notChatFormat` for one that is not a chat-completion chunk. */
  add(raw: unknown): void {
    const parsed = Chunk.safeParse(raw);
    if (!parsed.success) throw notChatFormat(this.server);
    this.chunks += 1;
    if (parsed.data.usage) this.usage = usageOf(parsed.data.usage);
    for (const choice of parsed.data.choices ?? []) {
      // One answer was asked for (no `n`): a server's other choices are not ours.
      if ((choice.index ?? 0) !== 0) continue;
      if (choice.finish_reason) this.finished = true;
      const content = choice.delta?.content;
      if (typeof content === "string") this.addText(content);
      const pieces = choice.delta?.tool_calls ?? [];
      for (let place = 0; place < pieces.length; place++) this.addCallPiece(pieces[place], place);
    }
  }

  /**
   * The reply the chunks made, or undefined when the server sent no chunk at all (it answered a
   * stream request without one: it can't stream). A stream cut before its finish reason is a
   * failed try (retryable): what arrived may be half an answer.
   */
  reply(): ModelReply | undefined {
    if (this.chunks === 0) return undefined;
    if (!this.finished)
      throw new ModelUnavailableError({
        cause: `the stream from ${this.server} ended before the reply was finished`,
        fix: "check the model server",
        retryable: true,
      });
    const toolCalls: ToolCall[] = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, draft]) => ({ ...draft, id: draft.id || fallbackCallId(this.callNumber, index) }));
    return { content: this.wrote ? this.text : null, toolCalls, ...(this.usage ? { usage: this.usage } : {}) };
  }

  private addText(piece: string): void {
    this.wrote = true;
    if (piece === "") return;
    this.text += piece;
    this.tell({ kind: "text", text: piece });
  }

  private addCallPiece(raw: unknown, place: number): void {
    const parsed = CallPiece.safeParse(raw);
    if (!parsed.success) return;
    const { index, id, function: fn } = parsed.data;
    const at = index ?? place;
    const draft = this.calls.get(at) ?? { id: "", name: "", arguments: "" };
    this.calls.set(at, draft);
    // The id and the name are told once, when they first come (some servers repeat them in every piece).
    const named = { ...(id && !draft.id ? { id } : {}), ...(fn?.name && !draft.name ? { name: fn.name } : {}) };
    Object.assign(draft, named);
    const fragment = argumentsText(fn?.arguments);
    draft.arguments += fragment;
    if (fragment !== "" || named.id || named.name) this.tell({ kind: "tool_call", index: at, ...named, arguments: fragment });
  }

  private tell(delta: ModelDelta): void {
    this.told = true;
    this.onDelta(delta);
  }
}
