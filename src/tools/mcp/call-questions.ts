// The questions a server puts to the person during its calls (`elicitation/create`), routed to
// the call that asked. Over Streamable HTTP a server sends a question about a call on that call's
// own response stream (the spec's SHOULD; the SDK's `extra.sendRequest`, FastMCP's `ctx.elicit`),
// and the SDK reads that stream in the async context of the request that opened it, so the
// question finds its call there even while calls of other runs share the connection. A question
// that came another way (stdio, the old SSE transport, the session's standalone stream) says
// nothing of its call: it goes to the run whose calls are in flight on this server; with none, or
// calls of several runs at once, it is refused with an error saying why. A call's result waits
// until the questions it asked are settled: the server cancelling its request, the connection
// ending or the call ending withdraws the form, so a late answer is never pretended sent.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema, ErrorCode, McpError, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { AskPerson } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import { questionOf, resultOf } from "./elicitation.js";

interface AskingCall {
  readonly runId: string;
  readonly ask: AskPerson;
  readonly questions: Set<Promise<unknown>>;
  /** Aborted once the call has its result: a question still open then is withdrawn. */
  readonly ended: AbortController;
}

/** The call a message of the server came with: `asking` is absent for a call that can't ask anyone. */
interface CallInContext {
  readonly asking?: AskingCall;
}

const refused = (why: string) => new McpError(ErrorCode.InvalidRequest, `elicitation refused: ${why}`);

/** Pure: the call a question goes to, or why it is refused. `own`: the call whose stream it came on, if it came on one. */
function askedCall(own: CallInContext | undefined, inFlight: readonly AskingCall[]): AskingCall | McpError {
  if (own?.asking) return own.asking.ended.signal.aborted ? refused("the call it belongs to has ended") : own.asking;
  if (own) return refused("the call it belongs to can't ask anyone");
  const first = inFlight[0];
  if (!first) return refused("the client asks a person only during a tool call");
  if (inFlight.some((call) => call.runId !== first.runId))
    return refused(
      "calls of several conversations are in flight on this server and the question did not come on its call's own stream, so the client can't tell whom to ask",
    );
  return first;
}

export class CallQuestions {
  private readonly calls = new Set<AskingCall>();
  private readonly context = new AsyncLocalStorage<CallInContext>();

  constructor(
    private readonly server: string,
    private readonly logger: Logger,
  ) {}

  /**
   * Runs `call` (the protocol's tools/call) as the call of `runId`, whose questions go to `ask`
   * (none: questions on its stream are refused); after it settles, waits for its questions to settle.
   */
  async during<T>(ask: AskPerson | undefined, runId: string | undefined, call: () => Promise<T>): Promise<T> {
    if (!ask) return this.context.run({}, call);
    const asking: AskingCall = { runId: runId ?? "", ask, questions: new Set(), ended: new AbortController() };
    this.calls.add(asking);
    try {
      return await this.context.run({ asking }, call);
    } finally {
      this.calls.delete(asking);
      asking.ended.abort();
      if (asking.questions.size > 0) await Promise.allSettled(asking.questions);
    }
  }

  /** This client's `elicitation/create` requests are answered here. */
  answerOn(client: Client): void {
    try {
      client.setRequestHandler(ElicitRequestSchema, (request, extra) => this.ask(request, extra.signal));
    } catch {
      // A client made without the capability (connect.ts always declares it) is never asked; the SDK refuses the handler then.
    }
  }

  /** `withdrawn` is the request's own signal. Rejects with McpError to refuse. */
  private async ask(request: ElicitRequest, withdrawn: AbortSignal): Promise<ElicitResult> {
    const call = askedCall(this.context.getStore(), [...this.calls]);
    if (call instanceof McpError) throw call;
    const question = questionOf(this.server, request);
    const asked = call.ask(question, AbortSignal.any([withdrawn, call.ended.signal]));
    call.questions.add(asked);
    const answer = await asked.finally(() => call.questions.delete(asked));
    this.logger.info({ runId: call.runId, mode: question.kind, action: answer.action }, "MCP server's question answered");
    return question.kind === "url" && answer.action === "accept" ? { action: "accept" } : resultOf(answer);
  }
}
