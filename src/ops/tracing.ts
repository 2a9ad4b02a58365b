// OpenTelemetry spans per the GenAI semantic conventions, built from the runs' events:
// `invoke_agent {agent}` per run (a resumed run is a new span on the same conversation),
// `chat {model}` per model call and `execute_tool {tool}` per tool call inside it, guard trips
// and approvals as span events. Only @opentelemetry/api here: without a registered provider
// every call is a no-op, so a process without OTEL_EXPORTER_OTLP_ENDPOINT pays next to nothing.
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from "@opentelemetry/api";
import type { AgentEvent, TaskOrigin } from "../contracts/types.js";
import type { RunObserver } from "../runs/worker/run-observer.js";

export interface TracingOptions {
  /** gen_ai.agent.name and the run span's name. */
  readonly agentName: string;
  /** gen_ai.request.model for the model calls. */
  readonly modelName: string;
  /** gen_ai.provider.name: the API the model client speaks. */
  readonly providerName?: string;
}

interface RunSpans {
  readonly run: Span;
  chat?: Span;
  readonly tools: Map<string, Span>;
}

const ATTR = {
  operation: "gen_ai.operation.name",
  agent: "gen_ai.agent.name",
  conversation: "gen_ai.conversation.id",
  provider: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  finishReasons: "gen_ai.response.finish_reasons",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  errorType: "error.type",
} as const;

export function tracingObserver(tracer: Tracer, options: TracingOptions): RunObserver {
  const runs = new Map<string, RunSpans>();
  const provider = options.providerName ?? "openai";

  const child = (spans: RunSpans, name: string, kind: SpanKind, attributes: Attributes, startTime?: number): Span =>
    tracer.startSpan(
      name,
      { kind, attributes, ...(startTime === undefined ? {} : { startTime }) },
      trace.setSpan(context.active(), spans.run),
    );

  const endChat = (spans: RunSpans, error?: string): void => {
    if (!spans.chat) return;
    if (error) spans.chat.setStatus({ code: SpanStatusCode.ERROR, message: error }).setAttribute(ATTR.errorType, error);
    spans.chat.end();
    spans.chat = undefined;
  };

  const endAll = (runId: string, spans: RunSpans, error?: string): void => {
    endChat(spans, error);
    for (const span of spans.tools.values()) span.setStatus({ code: SpanStatusCode.ERROR, message: error ?? "the run ended first" }).end();
    spans.run.end();
    runs.delete(runId);
  };

  function onEvent(spans: RunSpans, event: AgentEvent, origin: TaskOrigin): void {
    const conversation = { [ATTR.conversation]: origin.conversationKey };
    switch (event.type) {
      case "step_started":
        endChat(spans);
        spans.chat = child(spans, `chat ${options.modelName}`, SpanKind.CLIENT, {
          [ATTR.operation]: "chat",
          [ATTR.requestModel]: options.modelName,
          [ATTR.provider]: provider,
          ...conversation,
          "agent_bot.step": event.step,
        });
        return;
      case "model_replied":
        if (event.usage)
          spans.chat?.setAttributes({ [ATTR.inputTokens]: event.usage.promptTokens, [ATTR.outputTokens]: event.usage.completionTokens });
        spans.chat?.setAttribute(ATTR.finishReasons, [event.toolCalls.length > 0 ? "tool_calls" : "stop"]);
        if (event.endpoint) spans.chat?.setAttribute("agent_bot.model.endpoint", event.endpoint);
        endChat(spans);
        return;
      case "model_switched":
        spans.chat?.addEvent("model_switched", {
          "agent_bot.model.from": event.from,
          "agent_bot.model.to": event.to,
          "agent_bot.model.cause": event.cause,
        });
        return;
      case "tool_called":
        spans.tools.set(
          event.call.id,
          child(spans, `execute_tool ${event.call.name}`, SpanKind.INTERNAL, {
            [ATTR.operation]: "execute_tool",
            [ATTR.toolName]: event.call.name,
            [ATTR.toolCallId]: event.call.id,
            ...conversation,
          }),
        );
        return;
      case "tool_result": {
        const { call } = event;
        // Calls settled without running (repeated, blocked, denied) had no tool_called: their span covers their record's duration.
        const span =
          spans.tools.get(call.callId) ??
          child(
            spans,
            `execute_tool ${call.tool}`,
            SpanKind.INTERNAL,
            { [ATTR.operation]: "execute_tool", [ATTR.toolName]: call.tool, [ATTR.toolCallId]: call.callId, ...conversation },
            Date.now() - call.durationMs,
          );
        spans.tools.delete(call.callId);
        span.setAttribute("agent_bot.tool.outcome", call.outcome);
        if (call.outcome !== "ok")
          span.setStatus({ code: SpanStatusCode.ERROR, message: call.outcome }).setAttribute(ATTR.errorType, call.outcome);
        span.end();
        return;
      }
      case "guard_tripped":
        // A model call that failed or hung ends here: the guard (model_unavailable, deadline) says why.
        endChat(spans, event.stop.guard);
        spans.run.addEvent("guard_tripped", { "agent_bot.guard.name": event.stop.guard, "agent_bot.guard.detail": event.stop.detail });
        return;
      case "guard_warned":
        spans.run.addEvent("guard_warned", { "agent_bot.guard.name": event.guard, "agent_bot.guard.detail": event.detail });
        return;
      case "folded":
        spans.run.addEvent("context_folded", {
          "agent_bot.tokens.before": event.tokensBefore,
          "agent_bot.tokens.after": event.tokensAfter,
        });
        return;
      case "compacted":
        spans.run.addEvent("context_compacted", {
          "agent_bot.tokens.before": event.tokensBefore,
          "agent_bot.tokens.after": event.tokensAfter,
        });
        return;
      case "form_asked":
        spans.run.addEvent("form_asked", {
          "agent_bot.form.server": event.form.question.server,
          "agent_bot.form.kind": event.form.question.kind,
        });
        return;
      case "form_answered":
        spans.run.addEvent("form_answered", { "agent_bot.form.server": event.note.server, "agent_bot.form.action": event.note.action });
        return;
      case "approval_needed":
        spans.run.addEvent("approval_needed", { [ATTR.toolName]: event.approval.tool, [ATTR.toolCallId]: event.approval.callId });
        return;
      case "approval_decided":
        spans.run.addEvent("approval_decided", { [ATTR.toolCallId]: event.callId, "agent_bot.approval.decision": event.decision });
        return;
      case "final": {
        const { outcome } = event;
        spans.run.setAttributes({
          [ATTR.inputTokens]: outcome.usage.promptTokens,
          [ATTR.outputTokens]: outcome.usage.completionTokens,
          "agent_bot.run.outcome": outcome.status === "paused" ? "paused" : outcome.stop ? "stopped" : "answered",
          ...(outcome.status === "answered" && outcome.stop ? { "agent_bot.guard.name": outcome.stop.guard } : {}),
        });
        endAll(event.runId, spans);
        return;
      }
    }
  }

  return {
    runStarted(runId, origin, how) {
      const run = tracer.startSpan(`invoke_agent ${options.agentName}`, {
        kind: SpanKind.INTERNAL,
        attributes: {
          [ATTR.operation]: "invoke_agent",
          [ATTR.agent]: options.agentName,
          [ATTR.conversation]: origin.conversationKey,
          [ATTR.requestModel]: options.modelName,
          [ATTR.provider]: provider,
          "agent_bot.run.id": runId,
          "agent_bot.run.start": how,
          "agent_bot.surface": origin.surface,
        },
      });
      runs.set(runId, { run, tools: new Map() });
    },
    event(event, origin) {
      const spans = runs.get(event.runId);
      if (spans) onEvent(spans, event, origin);
    },
    runFailed(runId, _origin, error) {
      const spans = runs.get(runId);
      if (!spans) return;
      spans.run.recordException(error instanceof Error ? error : String(error));
      spans.run.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      endAll(runId, spans, "run_failed");
    },
  };
}
