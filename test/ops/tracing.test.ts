import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ScriptedModel } from "../support/model-scripted.js";
import type { RunOutcome } from "../../src/contracts/types.js";
import { loadConfig } from "../../src/config.js";
import { silentLogger } from "../../src/logger.js";
import { startOtlpTracing } from "../../src/ops/otel-setup.js";
import { tracingObserver } from "../../src/ops/tracing.js";
import { observeRun } from "../../src/runs/worker/run-observer.js";
import { noteTool, originFor, useServiceHarnesses } from "../support/service-harness.js";

const services = useServiceHarnesses();
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function traced(model: ScriptedModel) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const observer = tracingObserver(provider.getTracer("test"), { agentName: "guarded-agent", modelName: "gpt-4o-mini" });
  const { service } = await services.start({ model, tools: [noteTool().tool], observers: [observer] });
  cleanups.push(() => provider.shutdown());
  return { service, spans: () => exporter.getFinishedSpans(), observer };
}

const named = (spans: ReadableSpan[], prefix: string) => spans.filter((span) => span.name.startsWith(prefix));
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe("GenAI traces", () => {
  it("one invoke_agent span per run, with its chat and execute_tool spans nested and their attributes", async () => {
    const model = new ScriptedModel([
      { calls: [{ name: "calculator", args: { expression: "3+4" } }], usage: { promptTokens: 100, completionTokens: 12 } },
      { text: "7", usage: { promptTokens: 130, completionTokens: 3 } },
    ]);
    const { service, spans } = await traced(model);
    await service.ask({ origin: originFor("alice", "console:traced"), text: "3+4?" }, () => {});

    const finished = spans();
    const [run, ...otherRuns] = named(finished, "invoke_agent");
    expect(otherRuns).toEqual([]);
    expect(run!.name).toBe("invoke_agent guarded-agent");
    expect(run!.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "guarded-agent",
      "gen_ai.conversation.id": "console:traced",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.usage.input_tokens": 230,
      "gen_ai.usage.output_tokens": 15,
    });
    expect(parentOf(run!)).toBeUndefined();

    const chats = named(finished, "chat ");
    expect(chats.map((span) => span.name)).toEqual(["chat gpt-4o-mini", "chat gpt-4o-mini"]);
    for (const chat of chats) {
      expect(parentOf(chat)).toBe(run!.spanContext().spanId);
      expect(chat.spanContext().traceId).toBe(run!.spanContext().traceId);
      expect(chat.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.conversation.id": "console:traced",
      });
    }
    expect(chats[0]!.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 12 });
    expect(chats[1]!.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 130, "gen_ai.usage.output_tokens": 3 });

    const [tool, ...otherTools] = named(finished, "execute_tool");
    expect(otherTools).toEqual([]);
    expect(tool!.name).toBe("execute_tool calculator");
    expect(parentOf(tool!)).toBe(run!.spanContext().spanId);
    expect(tool!.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "calculator",
      "gen_ai.conversation.id": "console:traced",
    });
    // The tool ran between the first model call's end and the second's start. The SDK anchors each
    // span to Date.now() when it starts, so times of different spans agree only to about a millisecond.
    const ms = (time: [number, number]) => time[0] * 1e3 + time[1] / 1e6;
    const SLACK_MS = 2;
    expect(ms(tool!.startTime)).toBeGreaterThanOrEqual(ms(chats[0]!.endTime) - SLACK_MS);
    expect(ms(tool!.endTime)).toBeLessThanOrEqual(ms(chats[1]!.startTime) + SLACK_MS);
    expect(ms(run!.endTime)).toBeGreaterThanOrEqual(ms(chats[1]!.endTime) - SLACK_MS);
  });

  it("records a guard trip as an event on the run span, and a repeated call as a failed tool span", async () => {
    const repeat = { calls: [{ name: "calculator", args: { expression: "1+1" } }] };
    const { service, spans } = await traced(new ScriptedModel([repeat, repeat, repeat], { whenExhausted: { text: "summary" } }));
    await service.ask({ origin: originFor(), text: "loop" }, () => {});
    const [run] = named(spans(), "invoke_agent");
    expect(run!.events.map((event) => [event.name, event.attributes?.["agent_bot.guard.name"]])).toContainEqual([
      "guard_tripped",
      "repeat",
    ]);
    expect(run!.attributes["agent_bot.run.outcome"]).toBe("stopped");
    const outcomes = named(spans(), "execute_tool").map((span) => [span.attributes["agent_bot.tool.outcome"], span.status.code]);
    expect(outcomes).toContainEqual(["repeated", 2]);
  });

  it("a paused run ends its span with the approval as an event; the resumed run is a new span on the same conversation", async () => {
    const { service, spans } = await traced(
      new ScriptedModel([{ calls: [{ name: "post_note", args: { text: "hi" } }] }, { text: "posted" }]),
    );
    const paused = (await service.ask({ origin: originFor(), text: "post" }, () => {})) as Extract<RunOutcome, { status: "paused" }>;
    await service.decide({ runId: paused.runId, callId: paused.pending.callId, decision: "approve", decidedBy: { id: "alice" } }, () => {});
    const runs = named(spans(), "invoke_agent");
    expect(runs.map((span) => span.attributes["agent_bot.run.start"])).toEqual(["new", "resumed"]);
    expect(runs[0]!.events.map((event) => event.name)).toContain("approval_needed");
    expect(runs[1]!.events.map((event) => event.name)).toContain("approval_decided");
    expect(new Set(runs.map((span) => span.attributes["gen_ai.conversation.id"]))).toEqual(new Set(["console:approvals"]));
    const tool = named(spans(), "execute_tool post_note");
    expect(tool.map(parentOf)).toEqual([runs[1]!.spanContext().spanId]);
  });

  it("a run that fails ends its span with the error, and open child spans with it", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const observer = tracingObserver(provider.getTracer("test"), { agentName: "a", modelName: "m" });
    const run = observeRun(
      [observer],
      silentLogger,
      { runId: "r", origin: originFor(), how: "new" },
      () => {},
      async (sink) => {
        sink({ type: "step_started", runId: "r", step: 1 });
        throw new Error("bug");
      },
    );
    await expect(run).rejects.toThrow("bug");
    const finished = exporter.getFinishedSpans();
    expect(finished.map((span) => [span.name, span.status.code])).toEqual([
      ["chat m", 2],
      ["invoke_agent a", 2],
    ]);
  });

  it("loads no OpenTelemetry SDK unless OTEL_EXPORTER_OTLP_ENDPOINT is set, and refuses a value that is not a URL", async () => {
    expect(await startOtlpTracing({})).toBeUndefined();
    expect(loadConfig({}).otlpEndpoint).toBeUndefined();
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(
      /^OTEL_EXPORTER_OTLP_ENDPOINT: expects an http\(s\) URL/,
    );
  });

  it("exports the spans over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT", async () => {
    const received: Array<{ path: string; type: string; bytes: number }> = [];
    let arrived!: () => void;
    const posted = new Promise<void>((resolve) => (arrived = resolve));
    const collector = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request
        .on("data", (chunk: Buffer) => chunks.push(chunk))
        .on("end", () => {
          received.push({ path: request.url ?? "", type: request.headers["content-type"] ?? "", bytes: Buffer.concat(chunks).length });
          response.writeHead(200, { "Content-Type": "application/json" }).end("{}");
          arrived();
        });
    });
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => collector.close(resolve)));
    vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", `http://127.0.0.1:${(collector.address() as AddressInfo).port}`);
    cleanups.push(async () => vi.unstubAllEnvs());
    const tracing = await startOtlpTracing(process.env);
    expect(tracing).toBeDefined();
    const observer = tracingObserver(tracing!.tracer, { agentName: "a", modelName: "m" });
    await observeRun(
      [observer],
      silentLogger,
      { runId: "r", origin: originFor(), how: "new" },
      () => {},
      async (sink) => {
        sink({
          type: "final",
          runId: "r",
          outcome: { status: "answered", runId: "r", answer: "ok", steps: [], usage: { promptTokens: 1, completionTokens: 1 } },
        });
      },
    );
    await tracing!.shutdown();
    await posted;
    expect(received[0]).toMatchObject({ path: "/v1/traces" });
    expect(received[0]!.bytes).toBeGreaterThan(0);
  });
});
