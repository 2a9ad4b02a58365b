// A step's move to another endpoint in the OpenTelemetry trace: an event on the step's chat span
// (from, to, why) and the endpoint that answered as an attribute of it.
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import type { TaskOrigin } from "../../src/contracts/types.js";
import { tracingObserver } from "../../src/ops/tracing.js";

const A = "gpt-4.1@https://a.example/v1";
const B = "gpt-4o@https://b.example/v1";
const origin: TaskOrigin = { surface: "console", conversationKey: "console:traced", requester: { id: "alice" }, place: {} };

describe("a traced step that moved", () => {
  it("carries the move as an event of its chat span, and the endpoint that answered", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const observer = tracingObserver(provider.getTracer("test"), { agentName: "guarded-agent", modelName: "gpt-4.1" });
    observer.runStarted?.("run-1", origin, "new");
    observer.event({ type: "step_started", runId: "run-1", step: 1 }, origin);
    observer.event({ type: "model_switched", runId: "run-1", step: 1, from: A, to: B, cause: "429 from a.example" }, origin);
    observer.event({ type: "model_replied", runId: "run-1", step: 1, text: "hi", toolCalls: [], endpoint: B }, origin);
    const chat = exporter.getFinishedSpans().find((span) => span.name === "chat gpt-4.1");
    expect(chat?.attributes["agent_bot.model.endpoint"]).toBe(B);
    expect(chat?.events.map((event) => [event.name, event.attributes])).toEqual([
      ["model_switched", { "agent_bot.model.from": A, "agent_bot.model.to": B, "agent_bot.model.cause": "429 from a.example" }],
    ]);
    await provider.shutdown();
  });
});
