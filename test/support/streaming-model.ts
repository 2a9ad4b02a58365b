// A model whose replies stream: the inner model's reply (a ScriptedModel's, say), its text sent in
// pieces (word by word by default), `pieceMs` apart, to the request's onDelta before the reply
// itself, as a streaming endpoint sends them. A Stop or the deadline rejects at once, mid-stream.
import type { Model, ModelRequest } from "../../src/contracts/types.js";
import { delay } from "./model-scripted.js";
import { wordsOf } from "./stream-events.js";

export interface StreamingModelOptions {
  /** Between two pieces; default 10 ms. */
  readonly pieceMs?: number;
  /** How a reply's text is cut; default word by word. */
  readonly pieces?: (text: string) => readonly string[];
}

/** `pieces`: how many pieces reached a run so far. */
export function streamingModel(inner: Model, options: StreamingModelOptions = {}): Model & { readonly pieces: number } {
  let sent = 0;
  const send = (request: ModelRequest, text: string) => {
    if (!request.onDelta) return;
    request.onDelta({ kind: "text", text });
    sent += 1;
  };
  return {
    name: inner.name,
    get pieces() {
      return sent;
    },
    async complete(request, signal) {
      // The inner model is asked without onDelta: the pieces are this model's to send, at its pace.
      const { onDelta: _paced, ...whole } = request;
      const reply = await inner.complete(whole, signal);
      for (const piece of (options.pieces ?? wordsOf)(reply.content ?? "")) {
        await delay(options.pieceMs ?? 10, signal);
        send(request, piece);
      }
      return reply;
    },
  };
}
