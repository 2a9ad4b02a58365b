import { describe, expect, it } from "vitest";
import type { RunningAgentService } from "../../src/runs/service/create-agent-service.js";
import { ScriptedModel } from "../support/model-scripted.js";
import type { AgentEvent, PendingApproval, RunOutcome } from "../../src/contracts/types.js";
import { silentLogger } from "../../src/logger.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import type { SubmitResult, Task } from "../../src/runs/api/task.js";
import { instrumentModel, instrumentService, instrumentStore } from "../../src/ops/instrument.js";
import { createMetrics, type Metrics } from "../../src/ops/metrics.js";
import { metricsObserver } from "../../src/ops/metrics-observer.js";
import { observeRun } from "../../src/runs/worker/run-observer.js";
import { mapStore } from "../support/map-store.js";
import { noteTool, originFor, useServiceHarnesses } from "../support/service-harness.js";

type Sample = { name: string; labels: Record<string, string>; value: number };

/** A strict reader of the Prometheus text format: every line is a comment or a well-formed sample. */
function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  const typed = new Set<string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (comment) {
      if (comment[1] === "TYPE") {
        expect(["counter", "gauge", "histogram", "summary", "untyped"]).toContain(comment[3]);
        typed.add(comment[2]!);
      }
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`not Prometheus text: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (sample[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    // Prometheus reads floats as Go's ParseFloat does: NaN and Inf in any case (prom-client writes "Nan").
    const value = /^nan$/i.test(sample[3]!)
      ? Number.NaN
      : /^[+-]?inf$/i.test(sample[3]!)
        ? sample[3]!.startsWith("-")
          ? -Infinity
          : Infinity
        : Number(sample[3]);
    expect(Number.isNaN(value) && !/^nan$/i.test(sample[3]!), `a number in: ${line}`).toBe(false);
    const family = sample[1]!.replace(/_(bucket|sum|count)$/, "");
    expect(typed.has(sample[1]!) || typed.has(family), `${sample[1]} has a # TYPE line`).toBe(true);
    samples.push({ name: sample[1]!, labels, value });
  }
  return samples;
}

async function value(metrics: Metrics, name: string, labels: Record<string, string> = {}): Promise<number> {
  const found = parsePrometheus(await metrics.text()).filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, wanted]) => sample.labels[key] === wanted),
  );
  return found.reduce((sum, sample) => sum + sample.value, 0);
}

const services = useServiceHarnesses();

async function metered(model: ScriptedModel): Promise<{ service: RunningAgentService; metrics: Metrics; store: KeyValueStore }> {
  const metrics = createMetrics();
  const { service, store } = await services.start({
    model: instrumentModel(model, metrics),
    tools: [noteTool().tool],
    wrapStore: (real) => instrumentStore(real, metrics),
    observers: [metricsObserver(metrics)],
  });
  return { service, metrics, store };
}

const calc = (expression: string) => ({
  calls: [{ name: "calculator", args: { expression } }],
  usage: { promptTokens: 100, completionTokens: 10 },
});
const sink = (_event: AgentEvent) => {};

describe("/metrics", () => {
  it("is Prometheus text with the default process metrics and the bot's own families", async () => {
    const { metrics } = await metered(new ScriptedModel([]));
    const samples = parsePrometheus(await metrics.text());
    const names = new Set(samples.map((sample) => sample.name));
    expect(names).toContain("process_resident_memory_bytes");
    expect(names).toContain("nodejs_eventloop_lag_seconds");
    expect(metrics.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await metrics.text();
    for (const family of [
      "runs_started_total",
      "runs_ended_total",
      "runs_in_flight",
      "steps_total",
      "tool_calls_total",
      "approvals_requested_total",
      "approvals_decided_total",
      "approvals_expired_total",
      "approval_decision_seconds",
      "model_call_duration_seconds",
      "model_tokens_total",
      "queue_depth",
      "store_errors_total",
      "events_deduplicated_total",
    ]) {
      expect(text).toContain(`# TYPE agent_bot_${family} `);
    }
  });

  it("counts a run that answers: run, steps, tool call, model calls and tokens", async () => {
    const { service, metrics } = await metered(
      new ScriptedModel([calc("3+4"), { text: "7", usage: { promptTokens: 120, completionTokens: 5 } }]),
    );
    const outcome = await service.ask({ origin: originFor(), text: "3+4?" }, sink);
    expect(outcome).toMatchObject({ status: "answered", answer: "7" });
    expect(await value(metrics, "agent_bot_runs_started_total", { surface: "console", kind: "new" })).toBe(1);
    expect(await value(metrics, "agent_bot_runs_ended_total", { surface: "console", outcome: "answered", guard: "none" })).toBe(1);
    expect(await value(metrics, "agent_bot_runs_in_flight")).toBe(0);
    expect(await value(metrics, "agent_bot_steps_total", { surface: "console" })).toBe(2);
    expect(await value(metrics, "agent_bot_tool_calls_total", { tool: "calculator", outcome: "ok" })).toBe(1);
    expect(await value(metrics, "agent_bot_model_call_duration_seconds_count", { outcome: "ok" })).toBe(2);
    expect(await value(metrics, "agent_bot_model_tokens_total", { type: "prompt" })).toBe(220);
    expect(await value(metrics, "agent_bot_model_tokens_total", { type: "completion" })).toBe(15);
  });

  it("counts a run a guard stopped under the guard's name", async () => {
    const { service, metrics } = await metered(
      new ScriptedModel([calc("1+1"), calc("1+1"), calc("1+1")], { whenExhausted: { text: "summary" } }),
    );
    const outcome = await service.ask({ origin: originFor(), text: "loop" }, sink);
    expect(outcome).toMatchObject({ status: "answered", stop: { guard: "repeat" } });
    expect(await value(metrics, "agent_bot_runs_ended_total", { outcome: "stopped", guard: "repeat" })).toBe(1);
    expect(await value(metrics, "agent_bot_tool_calls_total", { tool: "calculator", outcome: "repeated" })).toBe(1);
  });

  it("counts an approval requested, the paused run, the decision and the time it waited", async () => {
    const { service, metrics } = await metered(
      new ScriptedModel([{ calls: [{ name: "post_note", args: { text: "hi" } }] }, { text: "posted" }]),
    );
    const paused = (await service.ask({ origin: originFor(), text: "post hi" }, sink)) as Extract<RunOutcome, { status: "paused" }>;
    expect(paused.status).toBe("paused");
    expect(await value(metrics, "agent_bot_approvals_requested_total", { surface: "console", tool: "post_note" })).toBe(1);
    expect(await value(metrics, "agent_bot_runs_ended_total", { outcome: "paused" })).toBe(1);
    expect(await value(metrics, "agent_bot_runs_in_flight")).toBe(0);
    const pending: PendingApproval = paused.pending;
    const decided = await service.decide(
      { runId: pending.runId, callId: pending.callId, decision: "approve", decidedBy: { id: "alice" } },
      sink,
    );
    expect(decided.kind).toBe("resumed");
    expect(await value(metrics, "agent_bot_runs_started_total", { kind: "resumed" })).toBe(1);
    expect(await value(metrics, "agent_bot_approvals_decided_total", { decision: "approve" })).toBe(1);
    expect(await value(metrics, "agent_bot_approval_decision_seconds_count", { decision: "approve" })).toBe(1);
    expect(await value(metrics, "agent_bot_tool_calls_total", { tool: "post_note", outcome: "ok" })).toBe(1);
    expect(await value(metrics, "agent_bot_runs_ended_total", { outcome: "answered" })).toBe(1);
  });

  it("counts an approval that expired", async () => {
    let now = 1_000_000;
    const metrics = createMetrics();
    const model = new ScriptedModel([{ calls: [{ name: "post_note", args: { text: "hi" } }] }], {
      whenExhausted: { text: "nobody approved" },
    });
    // A surface that shows expiries (the console's does): an expiry nobody could be shown is not ended.
    const { service, config } = await services.start({
      model,
      tools: [noteTool().tool],
      expired: () => {},
      clock: () => now,
      observers: [metricsObserver(metrics, () => now)],
    });
    await service.ask({ origin: originFor(), text: "post hi" }, sink);
    now += config.approvalTimeoutMs + 1;
    expect(await service.sweepExpiredApprovals()).toBe(1);
    expect(await value(metrics, "agent_bot_approvals_expired_total", { surface: "console" })).toBe(1);
    expect(await value(metrics, "agent_bot_runs_started_total", { kind: "expired" })).toBe(1);
    expect(await value(metrics, "agent_bot_runs_ended_total", { outcome: "stopped", guard: "approval_expired" })).toBe(1);
  });

  it("counts failed model calls, store errors, failed runs, deduplicated events and the queue depth", async () => {
    const metrics = createMetrics();
    const broken = instrumentModel(new ScriptedModel([{ error: new Error("down") }]), metrics);
    await expect(broken.complete({ messages: [], tools: [] }, new AbortController().signal)).rejects.toThrow("down");
    expect(await value(metrics, "agent_bot_model_call_duration_seconds_count", { outcome: "error" })).toBe(1);

    const failing: KeyValueStore = { ...mapStore(), get: async () => Promise.reject(new Error("gone")) };
    await expect(instrumentStore(failing, metrics).get("k")).rejects.toThrow("gone");
    expect(await value(metrics, "agent_bot_store_errors_total", { operation: "get" })).toBe(1);

    const observer = metricsObserver(metrics);
    const run = observeRun([observer], silentLogger, { runId: "r1", origin: originFor(), how: "new" }, sink, async () =>
      Promise.reject(new Error("bug")),
    );
    await expect(run).rejects.toThrow("bug");
    expect(await value(metrics, "agent_bot_runs_ended_total", { outcome: "failed" })).toBe(1);
    expect(await value(metrics, "agent_bot_runs_in_flight")).toBe(0);

    const taken = new Set<string>();
    const runner = instrumentService(
      {
        submit: async (_task: Task, receipt: string): Promise<SubmitResult> => {
          if (taken.has(receipt)) return { kind: "duplicate", intakeId: receipt, state: "done" };
          taken.add(receipt);
          return { kind: "accepted", intakeId: receipt };
        },
        other: () => "still there",
      },
      metrics,
    );
    const task: Task = { origin: { ...originFor(), surface: "slack" }, text: "hi" };
    expect(await runner.submit(task, "Ev1")).toMatchObject({ kind: "accepted" });
    expect(await runner.submit(task, "Ev1")).toMatchObject({ kind: "duplicate" });
    expect(runner.other()).toBe("still there");
    expect(await value(metrics, "agent_bot_events_deduplicated_total", { surface: "slack" })).toBe(1);
    metrics.setQueueDepthSource(async () => 7);
    expect(await value(metrics, "agent_bot_queue_depth")).toBe(7);
  });

  it("an observer that throws changes nothing the run or the surface sees", async () => {
    const seen: string[] = [];
    const result = await observeRun(
      [
        {
          event: () => {
            throw new Error("observer bug");
          },
        },
      ],
      silentLogger,
      { runId: "r2", origin: originFor(), how: "new" },
      (event) => seen.push(event.type),
      async (watched) => {
        watched({ type: "step_started", runId: "r2", step: 1 });
        return "done";
      },
    );
    expect(result).toBe("done");
    expect(seen).toEqual(["step_started"]);
  });
});
