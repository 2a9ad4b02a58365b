// The questions a server puts to the person during its calls (`elicitation/create`), routed to
// the call that can ask. The protocol does not say which call a request belongs to, so it goes to
// the run whose calls are in flight on this server; with none, or calls of several runs at once,
// it is refused with an error saying why. A call's result waits until the questions it asked are
// settled: the server cancelling its request, the connection ending or the call ending withdraws
// the form, so a late answer is never pretended sent.
import { ErrorCode, McpError, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
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

export class CallQuestions {
  private readonly calls = new Set<AskingCall>();

  constructor(
    private readonly server: string,
    private readonly logger: Logger,
  ) {}

  /** A call that can ask its run's requester is in flight; the returned end waits for its questions to settle. Never rejects. */
  track(ask: AskPerson | undefined, runId: string | undefined): () => Promise<void> {
    if (!ask) return async () => {};
    const call: AskingCall = { runId: runId ?? "", ask, questions: new Set(), ended: new AbortController() };
    this.calls.add(call);
    return async () => {
      this.calls.delete(call);
      call.ended.abort();
      if (call.questions.size > 0) await Promise.allSettled(call.questions);
    };
  }

  /** The SDK's handler for `elicitation/create`; `withdrawn` is the request's own signal. Rejects with McpError to refuse. */
  async ask(request: ElicitRequest, withdrawn: AbortSignal): Promise<ElicitResult> {
    const calls = [...this.calls];
    const call = calls[0];
    if (!call || new Set(calls.map((each) => each.runId)).size !== 1)
      throw new McpError(
        ErrorCode.InvalidRequest,
        call
          ? "elicitation refused: calls of several conversations are in flight on this server, so the client can't tell whom to ask"
          : "elicitation refused: the client asks a person only during a tool call",
      );
    const question = questionOf(this.server, request);
    const asked = call.ask(question, AbortSignal.any([withdrawn, call.ended.signal]));
    call.questions.add(asked);
    const answer = await asked.finally(() => call.questions.delete(asked));
    this.logger.info({ runId: call.runId, mode: question.kind, action: answer.action }, "MCP server's question answered");
    return question.kind === "url" && answer.action === "accept" ? { action: "accept" } : resultOf(answer);
  }
}
