// The audit log keeps how each server's form ended, from a real run against an SDK-built MCP
// server on 127.0.0.1 that asks the person: who answered, which server, which run, and the action
// (sent, declined, dismissed, or cancelled by its expiry), never what the person entered, which
// may be a secret. The audit listing says it in a line.
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent, PendingForm, RunOutcome } from "../../src/contracts/types.js";
import { auditLine } from "../../src/governance/command-text.js";
import { startAskingServer, type AskingServer } from "../support/elicitation-harness.js";
import { governedService, settingsOf, slackOrigin, type GovernedService } from "../support/governance-harness.js";
import { call, say, ScriptedModel } from "../support/model-scripted.js";
import { usePerTest } from "../support/per-test.js";
import { until } from "../support/until.js";

const { sqliteUrl, closeAfter } = usePerTest();
let server: AskingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const SECRET = "the vault code is 4711";

/** Alice's run that calls the server's booking form; resolves once the form is open, with the run still waiting on it. */
async function formAsked(env: Record<string, string> = {}): Promise<{
  harness: GovernedService;
  form: PendingForm;
  outcome: Promise<RunOutcome>;
}> {
  server = await startAskingServer();
  const harness = await governedService({
    model: new ScriptedModel([call("rooms__book_room", {}), say("finished")]),
    storeUrl: sqliteUrl(),
    settings: settingsOf({}),
    tools: server.manager.tools(),
    env,
  });
  closeAfter(harness);
  const outcome = harness.service.ask({ origin: slackOrigin("U1"), text: "book a room" }, harness.sink);
  await until(() => harness.events.some((event) => event.type === "form_asked"), "the server's form");
  const asked = harness.events.find((event): event is Extract<AgentEvent, { type: "form_asked" }> => event.type === "form_asked")!;
  return { harness, form: asked.form, outcome };
}

/** The form's entry, once the run ended; every entry as the store keeps it, to look through. */
async function formEntry(harness: GovernedService, outcome: Promise<RunOutcome>) {
  expect((await outcome).status).toBe("answered");
  await harness.policy.observer.settled();
  const entries = await harness.policy.audit.list({ limit: 20 });
  const found = entries.filter((entry) => entry.kind === "form_answered");
  expect(found).toHaveLength(1);
  return { entry: found[0]!, stored: JSON.stringify(entries) };
}

describe("the audit log of a server's form", () => {
  it("keeps who sent it, to which server, in which run, and not what they entered", async () => {
    const { harness, form, outcome } = await formAsked();
    const reply = await harness.service.forms.reply({
      formId: form.formId,
      by: { id: "U1", name: "Ana" },
      action: "accept",
      inputs: { purpose: SECRET },
    });
    expect(reply.kind).toBe("answered");
    const { entry, stored } = await formEntry(harness, outcome);
    expect(entry).toMatchObject({
      runId: form.runId,
      conversationKey: "slack:T1:C1:1700000000.000100",
      surface: "slack",
      requester: { id: "U1" },
      decidedBy: { id: "U1", name: "Ana" },
      form: { server: "rooms", kind: "form", action: "accept" },
    });
    expect(entry.callId).toBe(form.callId);
    expect(stored).not.toContain(SECRET);
    expect(stored).not.toContain("4711");
    expect(auditLine(entry, "plain")).toContain(`· form answered · form of rooms: sent by Ana (U1) · run ${form.runId} ·`);
  });

  it.each([
    ["declined", "decline", { action: "decline" }, "form of rooms: declined by U1"],
    ["dismissed", "cancel", { action: "cancel", reason: "dismissed" }, "form of rooms: dismissed by U1"],
  ] as const)("keeps a form %s, and by whom", async (_case, action, recorded, line) => {
    const { harness, form, outcome } = await formAsked();
    await harness.service.forms.reply({ formId: form.formId, by: { id: "U1" }, action });
    const { entry } = await formEntry(harness, outcome);
    expect(entry).toMatchObject({ runId: form.runId, decidedBy: { id: "U1" }, form: { server: "rooms", kind: "form", ...recorded } });
    expect(auditLine(entry, "plain")).toContain(line);
  });

  it("keeps a form nobody answered in time as cancelled by its expiry, answered by no one", async () => {
    const { harness, form, outcome } = await formAsked({ MCP_ELICITATION_TIMEOUT_MS: "1000" });
    const { entry } = await formEntry(harness, outcome);
    expect(entry).toMatchObject({ runId: form.runId, form: { server: "rooms", action: "cancel", reason: "timeout" } });
    expect(entry.decidedBy).toBeUndefined();
    expect(auditLine(entry, "plain")).toContain("form of rooms: cancelled (not answered in time)");
  });

  it("keeps nothing of another person's answer, which changes nothing", async () => {
    const { harness, form, outcome } = await formAsked();
    expect((await harness.service.forms.reply({ formId: form.formId, by: { id: "U2" }, action: "decline" })).kind).toBe("not_requester");
    await harness.service.forms.reply({ formId: form.formId, by: { id: "U1" }, action: "decline" });
    const { entry } = await formEntry(harness, outcome);
    expect(entry).toMatchObject({ decidedBy: { id: "U1" }, form: { action: "decline" } });
  });
});
