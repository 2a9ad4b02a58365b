// A scripted model for benchmarks that answers at once and never copies or reads the messages
// it is sent: each run asks for `toolSteps` tool calls with arguments that differ every step
// (and every run), then answers in text. ScriptedModel copies the message array per call, which
// would make the figures grow with the history for a reason that is not the loop's. Asked for
// pieces (the loop always asks), it streams each reply as the real client would tell it (its
// text word by word, its calls) unless made with `streams: false`, a server that answers whole.
import { replyDeltas, wordByWord } from "../../src/agent/models/reply-deltas.js";
import type { Model, ModelReply, ModelRequest } from "../../src/contracts/types.js";

export class InstantModel implements Model {
  readonly name = "instant";
  private tag = "";
  private step = 0;

  constructor(
    private readonly toolSteps: number,
    private readonly tool: string,
    private readonly options: { readonly streams: boolean } = { streams: true },
  ) {}

  /** Starts the script again for the next run; `tag` keeps its arguments apart from every other run's. */
  startRun(tag: string): void {
    this.tag = tag;
    this.step = 0;
  }

  complete(request: ModelRequest, _signal: AbortSignal): Promise<ModelReply> {
    const reply = this.next();
    if (this.options.streams && request.onDelta) for (const delta of replyDeltas(reply, wordByWord)) request.onDelta(delta);
    return Promise.resolve(reply);
  }

  private next(): ModelReply {
    this.step += 1;
    if (this.step > this.toolSteps) return { content: `Done after ${this.toolSteps} lookups in run ${this.tag}.`, toolCalls: [] };
    const id = `call_${this.step}`;
    return { content: null, toolCalls: [{ id, name: this.tool, arguments: `{"query":"item ${this.tag}-${this.step}"}` }] };
  }
}
