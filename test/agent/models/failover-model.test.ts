// The failover model over scripted endpoints: a retryable failure moves the call on at once, a
// breaker shared by every call rests a failing endpoint, a 429's wait is honoured when it fits
// the deadline, a smaller window is fitted first, what a failed try streamed is voided, and when
// nothing answers the failure names every endpoint.
import { describe, expect, it } from "vitest";
import { createEndpointBreakers, type EndpointBreakers } from "../../../src/agent/models/endpoint-breakers.js";
import { createFailoverModel, type ModelEndpoint } from "../../../src/agent/models/failover-model.js";
import type { ModelDelta, ModelRequest, ModelSwitch } from "../../../src/contracts/types.js";
import { ModelUnavailableError, type ModelFailure } from "../../../src/errors.js";
import { silentLogger } from "../../../src/logger.js";
import { ScriptedModel, say, type ScriptStep } from "../../support/model-scripted.js";

const A = "gpt-4.1@https://a.example/v1";
const B = "gpt-4o@https://b.example/v1";
const C = "llama3.1@http://127.0.0.1:11434/v1";

const rateLimited = (retryAfterMs?: number): ModelFailure => ({
  cause: "the model server is rate limiting (429)",
  fix: "wait a little",
  retryable: true,
  status: 429,
  ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
});
const failing: ModelFailure = { cause: "the model server is failing (503)", fix: "check the model server", retryable: true, status: 503 };
const refused = (server: string): ModelFailure => ({
  cause: `could not connect to ${server} (connection refused: ECONNREFUSED)`,
  fix: "check OPENAI_BASE_URL",
  retryable: true,
});
const badKey: ModelFailure = {
  cause: "the model server refused the key (401)",
  fix: "check OPENAI_API_KEY",
  retryable: false,
  status: 401,
};

const fails = (failure: ModelFailure): ScriptStep => ({ error: new ModelUnavailableError(failure) });

function endpoint(name: string, script: readonly ScriptStep[], contextWindow = 128_000, whenExhausted?: ScriptStep) {
  const model = new ScriptedModel(script, { name: name.split("@")[0]!, ...(whenExhausted ? { whenExhausted } : {}) });
  return { endpoint: { name, model, contextWindow } satisfies ModelEndpoint, model };
}

function failover(
  endpoints: readonly ModelEndpoint[],
  options: { breakers?: EndpointBreakers; maxRetries?: number; clock?: () => number } = {},
) {
  return createFailoverModel({
    endpoints: endpoints as [ModelEndpoint, ...ModelEndpoint[]],
    breakers: options.breakers ?? createEndpointBreakers({ failuresToOpen: 3, coolDownMs: 30_000 }, options.clock),
    maxRetries: options.maxRetries ?? 3,
    logger: silentLogger,
    ...(options.clock ? { clock: options.clock } : {}),
    random: () => 0,
  });
}

function ask(extra: Partial<ModelRequest> = {}) {
  const switches: ModelSwitch[] = [];
  const request: ModelRequest = {
    messages: [{ role: "user", content: "hi" }],
    tools: [],
    onSwitch: (change) => switches.push(change),
    ...extra,
  };
  return { request, switches };
}

const signal = () => new AbortController().signal;

describe("a call whose endpoint fails", () => {
  it("moves to the next endpoint at once and says which answered and why", async () => {
    const a = endpoint(A, [fails(rateLimited())]);
    const b = endpoint(B, [say("from b")]);
    const { request, switches } = ask();
    const reply = await failover([a.endpoint, b.endpoint]).complete(request, signal());
    expect(reply).toMatchObject({ content: "from b", endpoint: B });
    expect(switches).toEqual([{ from: A, to: B, cause: "429 from a.example" }]);
  });

  it("names the server in the cause when the failure had no status (a refused connection)", async () => {
    const a = endpoint(A, [fails(refused("https://a.example/v1"))]);
    const b = endpoint(B, [say("from b")]);
    const { request, switches } = ask();
    await failover([a.endpoint, b.endpoint]).complete(request, signal());
    expect(switches[0]?.cause).toBe("could not connect to https://a.example/v1 (connection refused: ECONNREFUSED)");
  });

  it("stays within the tries: OPENAI_MAX_RETRIES after the first, whichever endpoints they go to", async () => {
    const a = endpoint(A, [fails(failing)]);
    const b = endpoint(B, [fails(failing)]);
    const c = endpoint(C, [say("never")]);
    const { request } = ask();
    await expect(failover([a.endpoint, b.endpoint, c.endpoint], { maxRetries: 1 }).complete(request, signal())).rejects.toThrow(
      /gpt-4\.1 at a\.example: the model server is failing \(503\); gpt-4o at b\.example: the model server is failing \(503\); llama3\.1 at 127\.0\.0\.1:11434: not asked/,
    );
    expect(c.model.requests).toHaveLength(0);
  });

  it("ends at once on a failure another endpoint would not help (a refused key), naming that endpoint", async () => {
    const a = endpoint(A, [fails(badKey)]);
    const b = endpoint(B, [say("never")]);
    const { request } = ask();
    const error = await failover([a.endpoint, b.endpoint])
      .complete(request, signal())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as ModelUnavailableError).failure).toMatchObject({
      cause: "gpt-4.1 at a.example: the model server refused the key (401)",
      retryable: false,
    });
    expect(b.model.requests).toHaveLength(0);
  });

  it("names every endpoint and what each did when none answers, and can be tried again later", async () => {
    const a = endpoint(A, [], 128_000, fails(failing));
    const b = endpoint(B, [], 128_000, fails(refused("https://b.example/v1")));
    const { request } = ask({ deadline: Date.now() + 200 });
    const error = (await failover([a.endpoint, b.endpoint], { maxRetries: 1 })
      .complete(request, signal())
      .catch((caught: unknown) => caught)) as ModelUnavailableError;
    expect(error.failure).toEqual({
      cause:
        "no model endpoint answered (gpt-4.1 at a.example: the model server is failing (503); " +
        "gpt-4o at b.example: could not connect to https://b.example/v1 (connection refused: ECONNREFUSED))",
      fix: "check the model servers of OPENAI_BASE_URL and MODEL_FALLBACKS",
      retryable: true,
    });
  });

  it("tries the endpoints again after the backoff when every one failed and tries are left, announcing the retry", async () => {
    const a = endpoint(A, [fails(failing), say("a again")]);
    const b = endpoint(B, [fails(failing)]);
    const retries: unknown[] = [];
    const { request, switches } = ask({ onRetry: (retry) => retries.push(retry) });
    const reply = await failover([a.endpoint, b.endpoint]).complete(request, signal());
    expect(reply).toMatchObject({ content: "a again", endpoint: A });
    expect(retries).toEqual([{ retry: 2, of: 3, cause: "503 from b.example", waitMs: 500 }]);
    expect(switches.map((change) => `${change.from} → ${change.to}`)).toEqual([`${A} → ${B}`, `${B} → ${A}`]);
  });
});

describe("the breakers shared by every call of the process", () => {
  it("rest an endpoint after N failures in a row: later calls go straight to the next, saying why", async () => {
    const breakers = createEndpointBreakers({ failuresToOpen: 2, coolDownMs: 30_000 });
    const a = endpoint(A, [], 128_000, fails(failing));
    const b = endpoint(B, [], 128_000, say("from b"));
    const model = failover([a.endpoint, b.endpoint], { breakers });
    for (let run = 0; run < 2; run++) await model.complete(ask().request, signal());
    expect(a.model.requests).toHaveLength(2);
    const { request, switches } = ask();
    for (let run = 0; run < 10; run++) await model.complete(run === 0 ? request : ask().request, signal());
    expect(a.model.requests).toHaveLength(2);
    expect(switches).toEqual([{ from: A, to: B, cause: "its circuit breaker is open (last failure: 503 from a.example)" }]);
    expect(breakers.health(A)).toMatchObject({ state: "open", lastFailure: "503 from a.example" });
  });

  it("let one probe through after the cool-down, which closes the breaker when it answers", async () => {
    let now = 0;
    const clock = () => now;
    const breakers = createEndpointBreakers({ failuresToOpen: 1, coolDownMs: 30_000 }, clock);
    const a = endpoint(A, [fails(failing), say("a is back"), say("a again")]);
    const b = endpoint(B, [], 128_000, say("from b"));
    const model = failover([a.endpoint, b.endpoint], { breakers, clock });
    await model.complete(ask().request, signal());
    now = 29_999;
    expect((await model.complete(ask().request, signal())).endpoint).toBe(B);
    now = 30_000;
    expect((await model.complete(ask().request, signal())).endpoint).toBe(A);
    expect(breakers.health(A).state).toBe("closed");
    expect((await model.complete(ask().request, signal())).endpoint).toBe(A);
    expect(a.model.requests).toHaveLength(3);
  });

  it("let only one call probe at a time: the others meanwhile go to the next endpoint", async () => {
    let now = 0;
    const clock = () => now;
    const breakers = createEndpointBreakers({ failuresToOpen: 1, coolDownMs: 1_000 }, clock);
    const a = endpoint(A, [fails(failing), { delayMs: 30, text: "probe answered" }]);
    const b = endpoint(B, [], 128_000, say("from b"));
    const model = failover([a.endpoint, b.endpoint], { breakers, clock });
    await model.complete(ask().request, signal());
    now = 1_000;
    const replies = await Promise.all(Array.from({ length: 5 }, () => model.complete(ask().request, signal())));
    expect(replies.map((reply) => reply.endpoint)).toEqual([A, B, B, B, B]);
    expect(a.model.requests).toHaveLength(2);
  });

  it("honour a 429's retry-after for every call: the endpoint is not asked again before it", async () => {
    let now = 0;
    const clock = () => now;
    const breakers = createEndpointBreakers({ failuresToOpen: 3, coolDownMs: 30_000 }, clock);
    const a = endpoint(A, [fails(rateLimited(10_000)), say("a after the wait")]);
    const b = endpoint(B, [], 128_000, say("from b"));
    const model = failover([a.endpoint, b.endpoint], { breakers, clock });
    await model.complete(ask().request, signal());
    now = 9_999;
    expect((await model.complete(ask().request, signal())).endpoint).toBe(B);
    now = 10_000;
    expect((await model.complete(ask().request, signal())).endpoint).toBe(A);
  });
});

describe("a 429 when no other endpoint can be asked", () => {
  const restedB = () => {
    const breakers = createEndpointBreakers({ failuresToOpen: 3, coolDownMs: 600_000 });
    for (let failure = 0; failure < 3; failure++) breakers.failed(B, "503 from b.example");
    return breakers;
  };

  it("waits for its retry-after when that fits the run's deadline", async () => {
    const a = endpoint(A, [fails(rateLimited(30)), say("after the wait")]);
    const b = endpoint(B, [say("never")]);
    const { request } = ask({ deadline: Date.now() + 5_000 });
    const reply = await failover([a.endpoint, b.endpoint], { breakers: restedB() }).complete(request, signal());
    expect(reply).toMatchObject({ content: "after the wait", endpoint: A });
  });

  it("gives up at once when the wait would end after the deadline, naming what each endpoint did", async () => {
    const a = endpoint(A, [fails(rateLimited(60_000)), say("never")]);
    const b = endpoint(B, [say("never")]);
    const { request } = ask({ deadline: Date.now() + 5_000 });
    const started = performance.now();
    await expect(failover([a.endpoint, b.endpoint], { breakers: restedB() }).complete(request, signal())).rejects.toThrow(
      "no model endpoint answered (gpt-4.1 at a.example: the model server is rate limiting (429); " +
        "gpt-4o at b.example: its circuit breaker is open (last failure: 503 from b.example))",
    );
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe("a smaller window", () => {
  it("is fitted before its endpoint is asked, and the fitted messages are what it gets", async () => {
    const a = endpoint(A, [fails(failing)], 128_000);
    const b = endpoint(B, [say("small")], 8_192);
    const windows: number[] = [];
    const folded = [{ role: "user" as const, content: "folded" }];
    const { request } = ask({
      fitWindow: async (tokens) => {
        windows.push(tokens);
        return folded;
      },
    });
    await failover([a.endpoint, b.endpoint]).complete(request, signal());
    expect(windows).toEqual([8_192]);
    expect(b.model.requests[0]?.messages).toEqual(folded);
  });

  it("rules its endpoint out when the conversation can't fit it", async () => {
    const a = endpoint(A, [fails(failing)], 128_000);
    const b = endpoint(B, [say("never")], 8_192);
    const { request } = ask({ fitWindow: async () => undefined, deadline: Date.now() + 100 });
    await expect(failover([a.endpoint, b.endpoint], { maxRetries: 1 }).complete(request, signal())).rejects.toThrow(
      "gpt-4o at b.example: the conversation does not fit its context window (8,192 tokens)",
    );
    expect(b.model.requests).toHaveLength(0);
  });
});

describe("a streamed reply", () => {
  it("passes the pieces through and voids what a failed try streamed before the next endpoint's", async () => {
    const deltas: ModelDelta[] = [];
    const streaming = (pieces: readonly string[], failure?: ModelFailure): ModelEndpoint["model"] => ({
      name: "streaming",
      async complete(request) {
        for (const text of pieces) request.onDelta?.({ kind: "text", text });
        if (failure) throw new ModelUnavailableError(failure);
        return { content: pieces.join(""), toolCalls: [] };
      },
    });
    const model = failover([
      { name: A, model: streaming(["Hel"], failing), contextWindow: 128_000 },
      { name: B, model: streaming(["Hello", " there"]), contextWindow: 128_000 },
    ]);
    const reply = await model.complete(ask({ onDelta: (delta) => deltas.push(delta) }).request, signal());
    expect(reply.content).toBe("Hello there");
    expect(deltas).toEqual([
      { kind: "text", text: "Hel" },
      { kind: "restart", cause: "503 from a.example" },
      { kind: "text", text: "Hello" },
      { kind: "text", text: " there" },
    ]);
  });
});

describe("a call that is stopped", () => {
  it("rejects with the stop's reason and leaves a probe it held due for the next call", async () => {
    let now = 0;
    const clock = () => now;
    const breakers = createEndpointBreakers({ failuresToOpen: 1, coolDownMs: 1_000 }, clock);
    const a = endpoint(A, [fails(failing), { never: true }, say("probed again")]);
    const b = endpoint(B, [], 128_000, say("from b"));
    const model = failover([a.endpoint, b.endpoint], { breakers, clock });
    await model.complete(ask().request, signal());
    now = 1_000;
    const stop = new AbortController();
    const pending = model.complete(ask().request, stop.signal);
    await new Promise((resolve) => setImmediate(resolve));
    stop.abort(new Error("stopped by alice"));
    await expect(pending).rejects.toThrow("stopped by alice");
    expect(breakers.verdict(A)).toEqual({ kind: "probe" });
    expect((await model.complete(ask().request, signal())).endpoint).toBe(A);
  });
});
