// The audit log: approvals asked, decided (who, when, which process) and expired, and each
// write that ran with its outcome, taken from a real run's events and read back newest first.
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { call, say, ScriptedModel } from "../support/model-scripted.js";
import type { RunOutcome } from "../../src/contracts/types.js";
import { createAuditLog } from "../../src/governance/audit-log.js";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import { governedService, settingsOf, slackOrigin } from "../support/governance-harness.js";
import { until } from "../support/until.js";
import { noteTool } from "../support/service-harness.js";
import { usePerTest } from "../support/per-test.js";

const { sqliteUrl, closeAfter } = usePerTest();
const pendingOf = (outcome: RunOutcome) => {
  if (outcome.status !== "paused") throw new Error(`expected a pause, got: ${outcome.answer}`);
  return outcome.pending;
};

async function start(clock?: () => number) {
  const note = noteTool();
  const model = new ScriptedModel([], {
    whenExhausted: (request) => (request.messages.at(-1)?.role === "tool" ? say("finished") : call("post_note", { text: "hello team" })),
  });
  const harness = await governedService({
    model,
    storeUrl: sqliteUrl(),
    settings: settingsOf({}),
    tools: [note.tool],
    approvers: { users: { slack: ["UBOSS"] } },
    ...(clock ? { clock } : {}),
  });
  closeAfter(harness);
  return { ...harness, note };
}

describe("audit log", () => {
  it("holds the request, the approval with who and which process, and the write's outcome", async () => {
    const { service, policy, note } = await start();
    const pending = pendingOf(await service.ask({ origin: slackOrigin("U1"), text: "post it" }, () => {}));
    await service.decide(
      { runId: pending.runId, callId: pending.callId, decision: "approve", decidedBy: { id: "UBOSS", name: "Boss" } },
      () => {},
    );
    await policy.observer.settled();
    expect(note.posted).toEqual(["hello team"]);
    const entries = await policy.audit.list({ limit: 20 });
    expect(entries.map((entry) => entry.kind)).toEqual(["write_executed", "approval_decided", "approval_requested"]);
    const [write, decided, requested] = entries;
    expect(requested).toMatchObject({
      runId: pending.runId,
      conversationKey: "slack:T1:C1:1700000000.000100",
      tool: "post_note",
      args: '{"text":"hello team"}',
      requester: { id: "U1" },
    });
    expect(decided).toMatchObject({
      decision: "approve",
      decidedBy: { id: "UBOSS", name: "Boss" },
      tool: "post_note",
      process: { pid: process.pid, hostname: hostname() },
    });
    expect(write).toMatchObject({ tool: "post_note", outcome: "ok", result: "posted: hello team" });
    expect(decided!.at).toBeGreaterThan(0);
  });

  it("an admin of the settings file may decide anyone's approval; someone else may not", async () => {
    const note = noteTool();
    const model = new ScriptedModel([], {
      whenExhausted: (request) => (request.messages.at(-1)?.role === "tool" ? say("finished") : call("post_note", { text: "hi" })),
    });
    const harness = await governedService({
      model,
      storeUrl: sqliteUrl(),
      settings: settingsOf({ access: { admins: { slack: ["UADMIN"] } } }),
      tools: [note.tool],
    });
    closeAfter(harness);
    const pending = pendingOf(await harness.service.ask({ origin: slackOrigin("U1"), text: "post it" }, () => {}));
    const decide = (id: string) =>
      harness.service.decide({ runId: pending.runId, callId: pending.callId, decision: "approve", decidedBy: { id } }, () => {});
    expect(await decide("USTRANGER")).toMatchObject({ kind: "not_allowed" });
    expect(await decide("UADMIN")).toMatchObject({ kind: "resumed", decision: "approve" });
    expect(note.posted).toEqual(["hi"]);
  });

  it("an admin may stop anyone's run; someone else may not", async () => {
    const model = new ScriptedModel([{ never: true }], { whenExhausted: say("summary after the stop") });
    const harness = await governedService({
      model,
      storeUrl: sqliteUrl(),
      settings: settingsOf({ access: { admins: { slack: ["UADMIN"] } } }),
    });
    closeAfter(harness);
    let runId: string | undefined;
    const running = harness.service.ask({ origin: slackOrigin("U1"), text: "take your time" }, (event) => (runId ??= event.runId));
    await until(() => runId !== undefined && model.requests.length === 1, "the run's first model call");
    expect(await harness.service.stop({ runId: runId!, stoppedBy: { id: "USTRANGER" }, surface: "slack" })).toMatchObject({
      kind: "not_allowed",
    });
    expect(await harness.service.stop({ runId: runId!, stoppedBy: { id: "UADMIN" }, surface: "slack" })).toEqual({ kind: "stopping" });
    expect(await running).toMatchObject({ status: "answered" });
  });

  it("an admin of one surface is no admin of another: a console admin's id stops no Slack run", async () => {
    const model = new ScriptedModel([{ never: true }], { whenExhausted: say("summary after the stop") });
    const harness = await governedService({
      model,
      storeUrl: sqliteUrl(),
      settings: settingsOf({ access: { admins: { console: ["UCONSOLE"] } } }),
    });
    closeAfter(harness);
    let runId: string | undefined;
    const running = harness.service.ask({ origin: slackOrigin("U1"), text: "take your time" }, (event) => (runId ??= event.runId));
    await until(() => runId !== undefined && model.requests.length === 1, "the run's first model call");
    expect(await harness.service.stop({ runId: runId!, stoppedBy: { id: "UCONSOLE" }, surface: "slack" })).toMatchObject({
      kind: "not_allowed",
    });
    expect(await harness.service.stop({ runId: runId!, stoppedBy: { id: "U1" }, surface: "slack" })).toEqual({ kind: "stopping" });
    expect(await running).toMatchObject({ status: "answered" });
  });

  it("holds a denial, and no write", async () => {
    const { service, policy, note } = await start();
    const pending = pendingOf(await service.ask({ origin: slackOrigin("U1"), text: "post it" }, () => {}));
    await service.decide({ runId: pending.runId, callId: pending.callId, decision: "deny", decidedBy: { id: "U1" } }, () => {});
    await policy.observer.settled();
    expect(note.posted).toEqual([]);
    expect((await policy.audit.list({})).map((entry) => [entry.kind, entry.decision])).toEqual([
      ["approval_decided", "deny"],
      ["approval_requested", undefined],
    ]);
  });

  it("holds an expiry", async () => {
    let now = Date.now();
    const { service, policy, note } = await start(() => now);
    // Slack shows an expiry in its thread; without a surface to show it, the expiry would wait.
    service.attach("slack", { tools: [note.tool], expired: () => {} });
    pendingOf(await service.ask({ origin: slackOrigin("U1"), text: "post it" }, () => {}));
    now += 16 * 60_000;
    expect(await service.sweepExpiredApprovals()).toBe(1);
    await policy.observer.settled();
    expect((await policy.audit.list({})).map((entry) => [entry.kind, entry.tool])).toEqual([
      ["approval_expired", "post_note"],
      ["approval_requested", "post_note"],
    ]);
  });

  it("lists newest first, at most `limit`, and only since a time; entries written by two clients of one store share one log", async () => {
    const url = sqliteUrl();
    const [a, b] = [await openStore(url, silentLogger), await openStore(url, silentLogger)];
    let now = 1_000;
    const logA = createAuditLog(a, () => now);
    const logB = createAuditLog(b, () => now);
    const draft = (runId: string) => ({
      kind: "write_executed" as const,
      runId,
      conversationKey: "k",
      surface: "slack" as const,
      place: {},
      requester: { id: "U1" },
    });
    await logA.append(draft("r1"));
    now = 2_000;
    await logB.append(draft("r2"));
    await logA.append(draft("r3"));
    await a.set("audit:entry:2", { broken: true });
    expect((await logB.list({})).map((entry) => entry.runId)).toEqual(["r3", "r1"]);
    expect((await logA.list({ limit: 1 })).map((entry) => entry.runId)).toEqual(["r3"]);
    expect((await logA.list({ since: 1_500 })).map((entry) => entry.runId)).toEqual(["r3"]);
    await a.close();
    await b.close();
  });
});
