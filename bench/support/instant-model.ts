// A scripted model for benchmarks that answers at once and never copies or reads the messages
// it is sent: each run asks for `toolSteps` tool calls with arguments that differ every step
// (and every run), then answers in text. ScriptedModel copies the message array per call, which
// would make the figures grow with the history for a reason that is not the loop's.
import type { Model, ModelReply, ModelRequest } from "../../src/contracts/types.js";

export class InstantModel implements Model {
  readonly name = "instant";
  private tag = "";
  private step = 0;

  constructor(
    private readonly toolSteps: number,
    private readonly tool: string,
  ) {}

  /** Starts the script again for the next run; `tag` keeps its arguments apart from every other run's. */
  startRun(tag: string): void {
    this.tag = tag;
    this.step = 0;
  }

  complete(_request: ModelRequest, _signal: AbortSignal): Promise<ModelReply> {
    this.step += 1;
    if (this.step > this.toolSteps)
      return Promise.resolve({ content: `Done after ${this.toolSteps} lookups in run ${this.tag}.`, toolCalls: [] });
    const id = `call_${this.step}`;
    return Promise.resolve({ content: null, toolCalls: [{ id, name: this.tool, arguments: `{"query":"item ${this.tag}-${this.step}"}` }] });
  }
}
