// The act rule (src/governance/acts.ts) through the real run policy and runner: what each act is
// held to, that asking counts nothing, and a decision taken while the settings changed under a
// waiting write — refused for its decider (nothing claimed), or ending the run for its requester
// (no write, the summary's line naming why), each refusal in the audit log.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, say, ScriptedModel } from "./support/model-scripted.js";
import type { RunOutcome, TaskOrigin } from "../src/agent/types.js";
import type { ActKind } from "../src/governance/acts.js";
import { auditLine } from "../src/governance/command-text.js";
import type { Settings } from "../src/governance/settings-schema.js";
import type { SettingsSource } from "../src/governance/settings-source.js";
import { governedService, settingsOf, slackOrigin, type GovernedService } from "./support/governance-kit.js";
import { temporaryFolder } from "./support/memory-test-kit.js";
import { noteTool } from "./support/service-harness.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let count = 0;
const open: GovernedService[] = [];
beforeAll(async () => {
  folder = await temporaryFolder();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((harness) => harness.close()));
});
afterAll(async () => folder.remove());

const sqliteUrl = () => `sqlite://${folder.path}/acts-${++count}.sqlite`;
// Noon: a daily limit names its reset by the time, not as "in N s".
const clock = () => Date.UTC(2026, 11, 1, 12);
const ACTS: readonly ActKind[] = ["answer", "go_on", "stop", "feedback", "command"];

/** Settings an admin edits while the bot runs. */
function editable(initial: Settings): SettingsSource & { set(settings: Settings): void } {
  let settings = initial;
  return { current: () => settings, path: undefined, onReload: () => undefined, close: () => undefined, set: (next) => (settings = next) };
}

/** A service whose model asks to post a note, then says "finished" (also when asked for a summary, with no tools); UBOSS is an approver. */
async function start(settings: SettingsSource) {
  const note = noteTool();
  const model = new ScriptedModel([], {
    whenExhausted: (request) =>
      request.tools.length === 0 || request.messages.at(-1)?.role === "tool" ? say("finished") : call("post_note", { text: "hello team" }),
  });
  const harness = await governedService({
    model,
    storeUrl: sqliteUrl(),
    settings,
    tools: [note.tool],
    approvers: { users: { slack: ["UBOSS"] } },
    clock,
  });
  open.push(harness);
  const pendingFor = async (origin: TaskOrigin) => {
    const outcome = await harness.service.ask({ origin, text: "post it" }, () => {});
    if (outcome.status !== "paused") throw new Error(`expected a pause, got: ${outcome.answer}`);
    return outcome.pending;
  };
  return { ...harness, note, pendingFor };
}

const answered = (outcome: RunOutcome | undefined) => {
  if (outcome?.status !== "answered") throw new Error(`expected an answer, got ${JSON.stringify(outcome)}`);
  return outcome;
};

describe("the act rule", () => {
  it("holds answers and runs going on to the daily token limits, and Stop, votes and commands to access alone", async () => {
    const { policy } = await start(editable(settingsOf({ limits: { user: { tokensPerDay: 1000 } } })));
    await policy.recordUsage(slackOrigin("U1"), 1000);
    const checks = await Promise.all(ACTS.map((kind) => policy.check({ kind, origin: slackOrigin("U1") })));
    expect(Object.fromEntries(ACTS.map((kind, index) => [kind, checks[index]!.kind]))).toEqual({
      answer: "refused",
      go_on: "refused",
      stop: "allowed",
      feedback: "allowed",
      command: "allowed",
    });
    expect(checks[0]).toMatchObject({ text: "Sorry, your daily limit of 1,000 model tokens is reached. It resets at 00:00 UTC." });
  });

  it("refuses every act of a blocked person, and of anyone but an admin in a blocked channel", async () => {
    const settings = settingsOf({ access: { admins: { slack: ["UADMIN"] }, block: { users: ["UBAD"], channels: ["CBAD"] } } });
    const { policy } = await start(editable(settings));
    for (const kind of ACTS) {
      expect(await policy.check({ kind, origin: slackOrigin("UBAD") })).toMatchObject({ kind: "refused", text: /not allowed/ });
      expect(await policy.check({ kind, origin: slackOrigin("U1", "CBAD") })).toMatchObject({ kind: "refused", text: /this channel/ });
      expect(await policy.check({ kind, origin: slackOrigin("UADMIN", "CBAD") })).toEqual({ kind: "allowed" });
    }
  });

  it("counts nothing: a person's runs this minute are what they asked", async () => {
    const { policy } = await start(editable(settingsOf({ limits: { user: { runsPerMinute: 5 } } })));
    expect(await policy.admit(slackOrigin("U1"))).toEqual({ kind: "admitted" });
    for (const kind of ACTS) expect(await policy.check({ kind, origin: slackOrigin("U1") })).toEqual({ kind: "allowed" });
    expect(await policy.allowances(slackOrigin("U1"))).toMatchObject([{ limit: "runs", left: 4 }]);
  });
});

describe("a decision on a write that waited while the settings changed", () => {
  it("lets a requester approve their own write within the minute they asked, under a limit of one request a minute", async () => {
    const { service, note, pendingFor } = await start(editable(settingsOf({ limits: { user: { runsPerMinute: 1 } } })));
    const pending = await pendingFor(slackOrigin("U1"));
    const result = await service.decide(
      { runId: pending.runId, callId: pending.callId, decision: "approve", decidedBy: { id: "U1" } },
      () => {},
    );
    expect(result).toMatchObject({ kind: "resumed", decision: "approve" });
    expect(note.posted).toEqual(["hello team"]);
  });

  it("refuses a decider whose daily tokens are spent, claims nothing, and audits the refusal", async () => {
    const { service, policy, note, pendingFor } = await start(editable(settingsOf({ limits: { user: { tokensPerDay: 1000 } } })));
    const pending = await pendingFor(slackOrigin("U1"));
    await policy.recordUsage(slackOrigin("UBOSS"), 1000);
    const decide = (id: string, name?: string) =>
      service.decide(
        { runId: pending.runId, callId: pending.callId, decision: "approve", decidedBy: { id, ...(name ? { name } : {}) } },
        () => {},
      );
    expect(await decide("UBOSS", "Boss")).toEqual({
      kind: "refused",
      text: "Sorry, your daily limit of 1,000 model tokens is reached. It resets at 00:00 UTC.",
    });
    expect(note.posted).toEqual([]);
    // Nothing was claimed: the requester's own decision still applies.
    expect(await decide("U1")).toMatchObject({ kind: "resumed", decision: "approve" });
    expect(note.posted).toEqual(["hello team"]);
    await policy.observer.settled();
    const refused = (await policy.audit.list({})).find((entry) => entry.kind === "decision_refused");
    expect(refused).toMatchObject({
      runId: pending.runId,
      callId: pending.callId,
      tool: "post_note",
      requester: { id: "U1" },
      decision: "approve",
      decidedBy: { id: "UBOSS", name: "Boss" },
      reason: "the decider: the person's daily limit of 1000 model tokens is reached",
    });
    expect(auditLine(refused!, "plain")).toContain(
      "· decision refused post_note · approve by Boss (UBOSS): the decider: the person's daily limit of 1000 model tokens is reached ·",
    );
  });

  it.each([
    [
      "blocked",
      settingsOf({ access: { block: { users: ["U1"] } } }),
      "access_lost",
      "Stopped: you no longer have access here.",
      "the requester no longer has access here (blocked_user)",
    ],
    [
      "out of daily tokens",
      settingsOf({ limits: { user: { tokensPerDay: 1000 } } }),
      "token_limit",
      "Stopped: your daily limit of 1,000 model tokens is reached; it resets at 00:00 UTC.",
      "the person's daily limit of 1000 model tokens is reached",
    ],
  ])(
    "ends the run of a requester %s meanwhile, without its write, when an approver approves it",
    async (_what, later, guard, sentence, reason) => {
      const settings = editable(settingsOf({}));
      const { service, policy, note, pendingFor } = await start(settings);
      const pending = await pendingFor(slackOrigin("U1"));
      settings.set(later);
      await policy.recordUsage(slackOrigin("U1"), 1000);
      const result = await service.decide(
        { runId: pending.runId, callId: pending.callId, decision: "approve", decidedBy: { id: "UBOSS" } },
        () => {},
      );
      expect(result).toMatchObject({ kind: "resumed", decision: "approve" });
      const outcome = answered(result.kind === "resumed" ? result.outcome : undefined);
      expect(outcome).toMatchObject({ answer: "finished", stop: { guard, sentence, detail: reason } });
      expect(outcome.steps.flatMap((step) => step.calls).at(-1)).toMatchObject({
        tool: "post_note",
        outcome: "blocked",
        result: `Not run: ${reason}.`,
      });
      expect(note.posted).toEqual([]);
      await policy.observer.settled();
      const kinds = (await policy.audit.list({})).map((entry) => entry.kind);
      expect(kinds).toEqual(["decision_refused", "approval_requested"]);
      expect((await policy.audit.list({ limit: 1 }))[0]).toMatchObject({ decision: "approve", decidedBy: { id: "UBOSS" }, reason });
    },
  );
});
