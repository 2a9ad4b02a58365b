// A model over several endpoints tried in order: OPENAI_MODEL@OPENAI_BASE_URL, then each of
// MODEL_FALLBACKS. A try that fails in a way worth retrying (connection, timeout, 408, 409, 429,
// 5xx) moves the call to the next endpoint at once, within the same tries (OPENAI_MAX_RETRIES + 1)
// and the run's deadline; an endpoint whose circuit breaker is open is not asked at all. When no
// endpoint can be asked now the call waits for the first that can (a server's retry-after, a
// breaker's cool-down, the backoff), but only when that fits the deadline.
//
// Each endpoint's client makes one try per call: the tries, the waits and the announcements are
// this file's. A failure is classified before anything of the call reaches the person: an error
// is never a reply, and what a failed try streamed is voided (a `restart`) before the next one's.
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../../logger.js";
import { ModelUnavailableError, type ModelFailure } from "../../errors.js";
import type { ChatMessage, Model, ModelDelta, ModelReply, ModelRequest } from "../../contracts/types.js";
import type { EndpointBreakers } from "./endpoint-breakers.js";
import { nextTry } from "./failover-plan.js";
import { endpointFailure, failureCause, noEndpointAnswered, notAskedCause, unfitCause } from "./failover-text.js";
import { backoffMs } from "./model-failure.js";

export interface ModelEndpoint {
  /** `model@base URL` (src/contracts/model-endpoint.ts): the breaker's key and the records' name for it. */
  readonly name: string;
  /** A client that makes one try per call. */
  readonly model: Model;
  readonly contextWindow: number;
}

export interface FailoverOptions {
  /** In order: the primary first. */
  readonly endpoints: readonly [ModelEndpoint, ...ModelEndpoint[]];
  /** The process's breakers, shared with every other model of it. */
  readonly breakers: EndpointBreakers;
  /** Tries after the first, whichever endpoints they go to (OPENAI_MAX_RETRIES). */
  readonly maxRetries: number;
  readonly logger: Logger;
  readonly clock?: () => number;
  readonly random?: () => number;
}

/** A call outside a run's steps has no deadline: no wait of it is longer than this. */
const LONGEST_WAIT_WITHOUT_DEADLINE_MS = 60_000;

export function createFailoverModel(options: FailoverOptions): Model {
  const logger = options.logger.child({ component: "model" });
  return {
    name: options.endpoints[0].model.name,
    complete: (request, signal) => new FailoverCall({ ...options, logger }, request, signal).run(),
  };
}

/** One call's way through the endpoints. */
class FailoverCall {
  private readonly byName: ReadonlyMap<string, ModelEndpoint>;
  private readonly clock: () => number;
  private readonly failedThisRound = new Set<string>();
  /** Why an endpoint can't take this call at all. */
  private readonly ruledOut = new Map<string, string>();
  /** Each endpoint's last failure in this call. */
  private readonly failures = new Map<string, ModelFailure>();
  /** The endpoint the call is on: the primary until it moves. */
  private current: string;
  private messages: readonly ChatMessage[];
  private tries = 0;
  private round = 1;
  private streamed = false;
  private readonly deltas: ((delta: ModelDelta) => void) | undefined;

  constructor(
    private readonly options: FailoverOptions & { readonly logger: Logger },
    private readonly request: ModelRequest,
    private readonly signal: AbortSignal,
  ) {
    this.byName = new Map(options.endpoints.map((endpoint) => [endpoint.name, endpoint]));
    this.clock = options.clock ?? Date.now;
    this.current = options.endpoints[0].name;
    this.messages = request.messages;
    const onDelta = request.onDelta;
    this.deltas = onDelta
      ? (delta) => {
          this.streamed = true;
          onDelta(delta);
        }
      : undefined;
  }

  async run(): Promise<ModelReply> {
    this.signal.throwIfAborted();
    const { breakers } = this.options;
    for (;;) {
      const now = this.clock();
      const next = nextTry({
        endpoints: this.options.endpoints.map((endpoint) => endpoint.name),
        verdictOf: (endpoint) => breakers.verdict(endpoint),
        failedThisRound: this.failedThisRound,
        ruledOut: new Set(this.ruledOut.keys()),
        triesLeft: this.options.maxRetries + 1 - this.tries,
        now,
        waitLimit: this.request.deadline ?? now + LONGEST_WAIT_WITHOUT_DEADLINE_MS,
        backoffMs: backoffMs(this.round, this.options.random),
      });
      if (next.kind === "give_up") throw this.unavailable();
      if (next.kind === "wait") {
        await this.waitForRound(next.until - now);
        continue;
      }
      const endpoint = this.byName.get(next.endpoint)!;
      this.moveTo(endpoint.name);
      if (!(await this.fits(endpoint))) continue;
      const reply = await this.tryOn(endpoint);
      if (reply) return reply;
    }
  }

  /** A smaller window than the primary's: the caller folds or compacts for it first, or it is ruled out. */
  private async fits(endpoint: ModelEndpoint): Promise<boolean> {
    const { fitWindow } = this.request;
    if (!fitWindow || endpoint.contextWindow >= this.options.endpoints[0].contextWindow) return true;
    const fitted = await fitWindow(endpoint.contextWindow, this.signal);
    if (fitted) this.messages = fitted;
    else this.ruledOut.set(endpoint.name, unfitCause(endpoint.contextWindow));
    return fitted !== undefined;
  }

  /** One try; the reply, or undefined to plan the next try. Throws for a failure not worth another endpoint, and when aborted. */
  private async tryOn(endpoint: ModelEndpoint): Promise<ModelReply | undefined> {
    const { breakers } = this.options;
    const admitted = breakers.take(endpoint.name);
    // Another call took the probe between the plan and now.
    if (admitted === "refused") return undefined;
    this.tries += 1;
    try {
      const reply = await endpoint.model.complete({ ...this.request, messages: this.messages, onDelta: this.deltas }, this.signal);
      breakers.succeeded(endpoint.name);
      return { ...reply, endpoint: endpoint.name };
    } catch (error) {
      const failure = failureOf(error);
      if (this.signal.aborted || !failure.retryable) {
        breakers.abandoned(endpoint.name, admitted === "probe");
        if (this.signal.aborted) throw error;
        throw new ModelUnavailableError(endpointFailure(endpoint.name, failure));
      }
      const cause = failureCause(endpoint.name, failure);
      breakers.failed(endpoint.name, cause, failure.retryAfterMs);
      this.failures.set(endpoint.name, failure);
      this.failedThisRound.add(endpoint.name);
      if (this.streamed) this.request.onDelta?.({ kind: "restart", cause });
      this.streamed = false;
      return undefined;
    }
  }

  /** Tells the caller the call moves, with why it left the endpoint it was on. */
  private moveTo(endpoint: string): void {
    if (endpoint === this.current) return;
    const change = { from: this.current, to: endpoint, cause: this.whyLeft(this.current) };
    this.options.logger.info(change, "model call moved to another endpoint");
    this.request.onSwitch?.(change);
    this.current = endpoint;
  }

  private whyLeft(endpoint: string): string {
    const failure = this.failures.get(endpoint);
    if (failure) return failureCause(endpoint, failure);
    return this.ruledOut.get(endpoint) ?? notAskedCause(this.options.breakers.health(endpoint));
  }

  /** Nothing can be asked now: a new round once the first endpoint can be, announced as a retry. */
  private async waitForRound(waitMs: number): Promise<void> {
    const cause = this.whyLeft(this.current);
    this.options.logger.debug({ retry: Math.max(1, this.tries), of: this.options.maxRetries, waitMs, cause }, "model call retrying");
    // A wait before any try (every endpoint resting) is announced as the first retry: the person waits all the same.
    this.request.onRetry?.({ retry: Math.max(1, this.tries), of: this.options.maxRetries, cause, waitMs: Math.max(0, waitMs) });
    await sleep(Math.max(0, waitMs), undefined, { signal: this.signal });
    this.failedThisRound.clear();
    this.round += 1;
  }

  private unavailable(): ModelUnavailableError {
    const outcomes = this.options.endpoints.map(({ name }) => ({ endpoint: name, what: this.whatHappened(name) }));
    return new ModelUnavailableError(noEndpointAnswered(outcomes, this.ruledOut.size < this.options.endpoints.length));
  }

  private whatHappened(endpoint: string): string {
    const failure = this.failures.get(endpoint);
    if (failure) return failure.cause;
    return this.ruledOut.get(endpoint) ?? notAskedCause(this.options.breakers.health(endpoint));
  }
}

/** What a client's failure says; anything but the seam's own error is a failure of the client not worth retrying. */
function failureOf(error: unknown): ModelFailure {
  if (error instanceof ModelUnavailableError) return error.failure;
  return { cause: `the model call failed (${error instanceof Error ? error.message : String(error)})`, fix: "", retryable: false };
}
