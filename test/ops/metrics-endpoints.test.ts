// The model endpoints on /metrics: each endpoint's breaker state (1 for the state it is in) and
// the steps' moves from one endpoint to another.
import { describe, expect, it } from "vitest";
import { createEndpointBreakers } from "../../src/agent/models/endpoint-breakers.js";
import { createMetrics } from "../../src/ops/metrics.js";
import { metricsObserver } from "../../src/ops/metrics-observer.js";

const A = "gpt-4.1@https://a.example/v1";
const B = "gpt-4o@https://b.example/v1";

describe("model endpoint metrics", () => {
  it("show each endpoint's breaker state, as it is at the scrape", async () => {
    let now = 0;
    const breakers = createEndpointBreakers({ failuresToOpen: 1, coolDownMs: 1_000 }, () => now);
    breakers.failed(A, "503 from a.example");
    breakers.succeeded(B);
    const metrics = createMetrics();
    metrics.setEndpointSource(breakers.all);
    const text = await metrics.text();
    expect(text).toContain(`agent_bot_model_endpoint_state{endpoint="${A}",state="open"} 1`);
    expect(text).toContain(`agent_bot_model_endpoint_state{endpoint="${A}",state="closed"} 0`);
    expect(text).toContain(`agent_bot_model_endpoint_state{endpoint="${B}",state="closed"} 1`);
    now = 1_000;
    expect(await metrics.text()).toContain(`agent_bot_model_endpoint_state{endpoint="${A}",state="half_open"} 1`);
  });

  it("count the steps' moves by where from and where to", async () => {
    const metrics = createMetrics();
    const observer = metricsObserver(metrics);
    const origin = { surface: "slack" as const, conversationKey: "slack:T:C:1", requester: { id: "U" }, place: {} };
    observer.event({ type: "model_switched", runId: "r", step: 1, from: A, to: B, cause: "429 from a.example" }, origin);
    observer.event({ type: "model_switched", runId: "r", step: 2, from: A, to: B, cause: "429 from a.example" }, origin);
    expect(await metrics.text()).toContain(`agent_bot_model_switches_total{from="${A}",to="${B}"} 2`);
  });

  it("have no endpoint lines without fallbacks", async () => {
    expect(await createMetrics().text()).not.toContain("agent_bot_model_endpoint_state{");
  });
});
