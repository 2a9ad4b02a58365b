// The soak's own verdict (soak/checks.ts), its fault schedule and its model: each check must
// fail on the breach it names, so a green soak means something.
import { UNKNOWN_OUTCOME } from "../../src/runs/worker/write-ledger.js";
import { describe, expect, it } from "vitest";
import { faultSchedule } from "../../soak/chaos.js";
import { awaitingAnswers, runChecks, type CheckName, type SoakRecord } from "../../soak/checks.js";
import { editIntakeIdOf, intakeIdOf, type Outcome } from "../../soak/taken-up.js";
import { createSoakModel } from "../../soak/model.js";
import { emptyObserved, type Observed, type Post } from "../../soak/observer.js";
import { FAULT_KINDS } from "../../soak/options.js";
import { planFor, type PlanKind } from "../../soak/plans.js";
import type { SentMessage } from "../../soak/traffic.js";

const THREAD = "1800000001.000200";

function message(n: number, fields: Partial<SentMessage> & { kind?: PlanKind } = {}): SentMessage {
  const { kind = "answer", ...rest } = fields;
  return {
    n,
    conversation: 0,
    index: n,
    channel: "C0SOAK1",
    threadTs: THREAD,
    ts: `18000000${n}.000200`,
    user: "U0ALICE",
    plan: { kind, modelDelayMs: 0 },
    sentAt: n,
    sentSeq: n * 10,
    afterPreviousAck: true,
    deliveries: 1,
    ackedAt: n + 0.1,
    approveClicks: kind === "approved" ? 1 : 0,
    stopClicks: 0,
    ...rest,
  };
}

const post = (seq: number, text: string): Post => ({ seq, channel: "C0SOAK1", threadTs: THREAD, text });

interface Extra {
  readonly ledgerWrites?: ReadonlyMap<string, number>;
  readonly loggedAnswers?: ReadonlyMap<number, readonly string[]>;
  readonly hostileFiles?: SoakRecord["hostileFiles"];
  readonly modelRequests?: readonly string[];
  readonly leftStreaming?: SoakRecord["leftStreaming"];
  readonly outcomes?: SoakRecord["outcomes"];
  readonly edits?: SoakRecord["edits"];
}

/** Every message answered once, right after it was sent, unless `change` says otherwise. */
function record(messages: SentMessage[], change: (observed: Omit<Observed, "poll">) => void = () => {}, extra: Extra = {}): SoakRecord {
  const observed = emptyObserved();
  for (const sent of messages) observed.answers.set(sent.n, [post(sent.sentSeq + 5, `ANSWER m${sent.n} ${sent.plan.kind}`)]);
  change(observed);
  return {
    messages,
    observed,
    ledgerWrites: extra.ledgerWrites ?? new Map(),
    leftovers: { unfinishedIntake: [], pendingApprovals: [] },
    deaths: [],
    loggedAnswers: extra.loggedAnswers ?? new Map(),
    hostileFiles: extra.hostileFiles ?? [],
    modelRequests: extra.modelRequests ?? [],
    leftStreaming: extra.leftStreaming ?? [],
    outcomes: extra.outcomes ?? new Map(),
    edits: extra.edits ?? [],
  };
}

const failuresOf = (checked: SoakRecord) =>
  Object.fromEntries(runChecks(checked).map((result) => [result.name, result.failures])) as Record<CheckName, readonly string[]>;

describe("the soak's checks", () => {
  it("all hold for messages answered once, in order, with no writes", () => {
    const failures = failuresOf(record([message(1), message(2)]));
    expect(Object.values(failures).flat()).toEqual([]);
  });

  it("name a message answered twice, and one never answered with where its answer went", () => {
    const logged = new Map([[2, ["bot-0-1.log: no slack surface here to show a run's outcome; it is in this log line"]]]);
    const checked = record(
      [message(1), message(2)],
      (observed) => {
        observed.answers.get(1)!.push(post(40, "ANSWER m1 answer"));
        observed.answers.delete(2);
      },
      { loggedAnswers: logged },
    );
    const [twice, never] = failuresOf(checked).answeredOnce;
    expect(twice).toMatch(/^m1 .*answered 2 times/);
    expect(never).toMatch(/^m2 .*never answered; its answer is only in a log \(bot-0-1\.log/);
  });

  it("count a storage-trouble reply as the answer of the message that lacks one, and flag one no message lacked", () => {
    const answered = record([message(1), message(2)], (observed) => {
      observed.answers.delete(2);
      observed.storageTrouble.set(THREAD, [post(21, "Sorry, I could not handle that just now (my storage did not answer).")]);
    });
    expect(failuresOf(answered).answeredOnce).toEqual([]);
    const extra = record([message(1)], (observed) => observed.storageTrouble.set(THREAD, [post(12, "my storage did not answer")]));
    expect(failuresOf(extra).answeredOnce).toEqual([expect.stringContaining("a reply no message lacked")]);
  });

  it("give a storage-trouble reply made right at the send (the next call index) to that message, and no order to keep", () => {
    const checked = record([message(1), message(2)], (observed) => {
      observed.answers.set(1, [post(25, "ANSWER m1 answer")]);
      observed.answers.delete(2);
      observed.storageTrouble.set(THREAD, [post(20, "Sorry, I could not handle that just now (my storage did not answer).")]);
    });
    const failures = failuresOf(checked);
    expect(failures.answeredOnce).toEqual([]);
    expect(failures.inOrder).toEqual([]);
  });

  it("expect no approval card for an approved write whose message was not recorded (storage trouble at the ack)", () => {
    const checked = record([message(1, { kind: "approved", approveClicks: 0 })], (observed) => {
      observed.answers.delete(1);
      observed.storageTrouble.set(THREAD, [post(12, "my storage did not answer")]);
    });
    expect(failuresOf(checked).approvedExactlyOnce).toEqual([]);
    const recorded = record([message(1, { kind: "approved", approveClicks: 0 })]);
    expect(failuresOf(recorded).approvedExactlyOnce).toEqual([expect.stringMatching(/^m1 .*no approval card was posted/)]);
  });

  it("flag an answer that overtook the one of a message acknowledged before it was sent, but not one sent before that ack", () => {
    const overtaken = (afterPreviousAck: boolean) =>
      record([message(1), message(2, { afterPreviousAck })], (observed) => {
        observed.answers.set(1, [post(50, "ANSWER m1 answer")]);
        observed.answers.set(2, [post(30, "ANSWER m2 answer")]);
      });
    expect(failuresOf(overtaken(true)).inOrder).toEqual([expect.stringMatching(/^m2 .*answered before m1/)]);
    expect(failuresOf(overtaken(false)).inOrder).toEqual([]);
  });

  it("flag a write made twice, an approved write never made, and an approval applied twice", () => {
    const checked = record(
      [message(1, { kind: "approved" }), message(2, { kind: "allowed" }), message(3, { kind: "approved" })],
      (observed) => {
        observed.writes.set(3, [
          { seq: 33, status: 200, error: undefined },
          { seq: 36, status: 200, error: undefined },
        ]);
        observed.approvedNotes.set("1700000003.000100", new Set(["Approved by <@U1>", "Approved by <@U2>"]));
        observed.approvedNotes.set("1700000001.000100", new Set(["Approved by <@U1>"]));
      },
      { ledgerWrites: new Map([["m2", 2]]) },
    );
    const failures = failuresOf(checked);
    expect(failures.writesAtMostOnce).toEqual(["approved write m3: posted 2 times", "allowed write m2: recorded 2 times"]);
    expect(failures.approvedExactlyOnce).toEqual([
      expect.stringMatching(/^m1 .*approved \(1 clicks\), written 0 times/),
      expect.stringMatching(/^m3 .*written 2 times/),
    ]);
    expect(failures.noApprovalAppliedTwice).toEqual([
      "approved write m3: tried 2 times (statuses 200, 200)",
      "approval card 1700000003.000100: settled as approved 2 ways: Approved by <@U1> | Approved by <@U2>",
    ]);
  });

  it("accept an approved write that Slack refused (a 500 applies nothing) as not made", () => {
    const checked = record([message(1, { kind: "approved" })], (observed) =>
      observed.writes.set(1, [{ seq: 13, status: 500, error: undefined }]),
    );
    expect(failuresOf(checked).approvedExactlyOnce).toEqual([]);
  });

  it("accept an approved write cut by a kill -9 as not made when its answer says the outcome is unknown, and flag it otherwise", () => {
    const told = record([message(1, { kind: "approved" })], (observed) =>
      observed.answers.set(1, [post(15, `ANSWER m1 approved (tools said: "Error: ${UNKNOWN_OUTCOME}")`)]),
    );
    expect(failuresOf(told).approvedExactlyOnce).toEqual([]);
    const silent = record([message(1, { kind: "approved" })], (observed) => observed.answers.set(1, [post(15, "ANSWER m1 approved")]));
    expect(failuresOf(silent).approvedExactlyOnce).toEqual([expect.stringMatching(/^m1 .*written 0 times/)]);
  });

  it("flag what the store still holds, deaths the soak did not cause, runs without their tools and apologies", () => {
    const checked = record([message(1)], (observed) => {
      observed.answers.set(1, [post(15, "ANSWER m1 missing-tools ledger__record")]);
      observed.apologies.set("1800000009.000200", [post(90, "Sorry, something went wrong on my side and I could not finish.")]);
    });
    const failures = failuresOf({
      ...checked,
      leftovers: {
        unfinishedIntake: [{ id: "abc", state: "running", text: "soak m7 read" }],
        pendingApprovals: [{ runId: "r1", text: '{"question":"soak m3 x","history":"soak m1"}' }],
      },
      deaths: [{ slot: 1, incarnation: 2, atSeconds: 12.5, code: 1, signal: null, lastLines: ["HTTPReceiverDeferredRequestError: …"] }],
    });
    expect(failures.noRunStuck).toEqual(["intake record abc (m7) still running", "run r1 (m3) still waits for an approval"]);
    expect(failures.noUnexpectedDeath).toEqual([expect.stringContaining("bot 1 (start 2) exited at 12.5 s with code 1")]);
    expect(failures.noRunWithoutTools).toHaveLength(1);
    expect(failures.noRunFailed).toHaveLength(1);
  });
});

describe("the soak's check of hostile files", () => {
  const bomb = { name: "bomb.pdf", expected: ["it expands to more than", "not read again"] };
  const request = (n: number, note: string) =>
    JSON.stringify([{ role: "user", content: `soak m${n} answer [file F1: "bomb.pdf" ${note}]` }]);
  /** Messages 1 and 2 each carried the bomb; the model was asked `requests`. */
  const checkedWith = (...requests: string[]) =>
    failuresOf(
      record([message(1), message(2)], undefined, {
        hostileFiles: [
          { n: 1, ...bomb },
          { n: 2, ...bomb },
        ],
        modelRequests: requests,
      }),
    ).hostileFilesRead;

  it("holds when the run's request gives the reader's verdict, or says a file is not read again after a kill", () => {
    const failures = checkedWith(
      request(1, "could not be read: it expands to more than 100.0 MB"),
      request(2, "the bot stopped while it read this file, so it is not read again"),
    );
    expect(failures).toEqual([]);
  });

  it("flags a file no request gives a verdict for (a failed download, a reader that never answered)", () => {
    const failures = checkedWith(
      request(1, "was not read: the platform answered with a login page"),
      request(1, "it expands to more than 100.0 MB"),
    );
    expect(failures).toEqual(["m2: no run request says what became of bomb.pdf (one of: it expands to more than | not read again)"]);
  });
});

describe("the soak's streamed messages", () => {
  it("flags a message left streaming, and holds when every stream ended", () => {
    const messages = [message(1)];
    expect(failuresOf(record(messages)).noMessageLeftStreaming).toEqual([]);
    const left = { channel: "C0SOAK1", threadTs: "1700000001.000100", text: "ANSWER m1 pla" };
    expect(failuresOf(record(messages, () => {}, { leftStreaming: [left] })).noMessageLeftStreaming).toEqual([
      'C0SOAK1 thread 1700000001.000100: a message still streaming ("ANSWER m1 pla")',
    ]);
  });
});

describe("the soak's fault schedule", () => {
  it("is the same for a seed, has every kind at least once, keeps the first and last 8 s quiet, and leaves out what is skipped", () => {
    const schedule = faultSchedule(24, 120_000, new Set());
    expect(faultSchedule(24, 120_000, new Set())).toEqual(schedule);
    expect(faultSchedule(25, 120_000, new Set())).not.toEqual(schedule);
    expect(new Set(schedule.map((fault) => fault.kind))).toEqual(new Set(FAULT_KINDS));
    expect(schedule.every((fault) => fault.atMs >= 8_000 && fault.atMs <= 112_000)).toBe(true);
    expect(schedule.map((fault) => fault.atMs)).toEqual([...schedule.map((fault) => fault.atMs)].sort((a, b) => a - b));
    expect(faultSchedule(24, 120_000, new Set(["junk", "kill"])).some((fault) => fault.kind === "junk" || fault.kind === "kill")).toBe(
      false,
    );
  });
});

describe("the soak's model", () => {
  const nWith = (kind: PlanKind) => Array.from({ length: 200 }, (_, n) => n).find((n) => planFor(1, n).kind === kind)!;
  const tools = (...names: string[]) => names.map((name) => ({ type: "function", function: { name } }));
  const request = (body: object) => ({ method: "POST", path: "/v1/chat/completions", headers: {}, body });

  it("makes the planned calls for the message asked about, with a fresh call id each time, then answers naming it", () => {
    const model = createSoakModel(
      1,
      () => "C0SOAK2",
      () => 0,
    );
    const n = nWith("allowed");
    const question = { role: "user", content: `soak m${n} allowed` };
    const offered = tools("ledger__record", "ledger__lookup", "post_message", "read_channel");
    const first = model.reply(request({ messages: [{ role: "user", content: "soak m0 earlier" }, question], tools: offered }));
    const again = model.reply(request({ messages: [question], tools: offered }));
    const calls = (reply: typeof first) =>
      (reply.body as { choices: [{ message: { tool_calls: Array<{ id: string; function: { name: string } }> } }] }).choices[0].message
        .tool_calls;
    expect(calls(first).map((call) => call.function.name)).toEqual(["ledger__record", "ledger__lookup"]);
    expect(calls(again)[0]!.id).not.toBe(calls(first)[0]!.id);
    const afterTools = model.reply(
      request({
        messages: [question, { role: "assistant", content: null, tool_calls: calls(first) }, { role: "tool", content: "recorded m1" }],
        tools: offered,
      }),
    );
    const text = (reply: typeof first) => (reply.body as { choices: [{ message: { content: string } }] }).choices[0].message.content;
    expect(text(afterTools)).toBe(`ANSWER m${n} allowed (tools said: "recorded m1")`);
    expect(text(model.reply(request({ messages: [question] })))).toBe(`ANSWER m${n} summary`);
    expect(text(model.reply(request({ messages: [question], tools: tools("read_channel") })))).toMatch(
      /missing-tools ledger__record,ledger__lookup$/,
    );
  });
});

describe("the soak's checks of talk conversations", () => {
  const talk = (n: number, role: NonNullable<SentMessage["talk"]>, fields: Partial<SentMessage> = {}) =>
    message(n, { channel: "C0SOAKTALK", talk: role, kind: "talk", ...fields });
  const outcomes = (entries: ReadonlyArray<readonly [SentMessage, Outcome]>) =>
    new Map(entries.map(([sent, outcome]) => [intakeIdOf(sent), outcome]));

  it("credit a run's answer, naming the newest message it took up, to the message it began with", () => {
    const [root, added] = [talk(1, "root"), talk(2, "added")];
    const taken = outcomes([
      [root, { state: "done", result: "answered" }],
      [added, { state: "done", result: "steered", into: intakeIdOf(root) }],
    ]);
    const steered = record([root, added], (observed) => observed.answers.delete(1), {
      outcomes: taken,
      modelRequests: ["… soak m1 talk … The person added: soak m2 added"],
    });
    expect(failuresOf(steered).answeredOnce).toEqual([]);
    expect(failuresOf(steered).addedReachedARun).toEqual([]);
    expect(awaitingAnswers([root, added], steered.observed, taken)).toBe(0);
    // Both answered on their own although one was taken up: that is two answers for one run's messages.
    const twice = record([root, added], () => {}, { outcomes: taken, modelRequests: ["soak m2 added"] });
    expect(failuresOf(twice).answeredOnce).toEqual([expect.stringMatching(/^m1 .*answered 2 times/)]);
  });

  it("expect a second answer for an edit that ran as a question of its own, and only then", () => {
    const root = talk(1, "root");
    const edit = { n: 1, channel: "C0SOAKTALK", ts: root.ts, editedTs: "1800000009.000200", text: "soak m1 talk edited", ackedAt: 3 };
    const twoAnswers = (observed: Omit<Observed, "poll">) =>
      observed.answers.set(1, [post(15, "ANSWER m1 talk"), post(25, "ANSWER m1 talk")]);
    const ranAlone = new Map<string, Outcome>([[editIntakeIdOf(edit), { state: "done", result: "answered" }]]);
    const asked = ["soak m1 talk", "soak m1 talk edited"];
    const alone = record([root], twoAnswers, { edits: [edit], outcomes: ranAlone, modelRequests: asked });
    expect(failuresOf(alone).answeredOnce).toEqual([]);
    // Taken into the run, the edit is answered with it: a second answer is one too many, and one alone too few when it ran on its own.
    const steered = new Map<string, Outcome>([[editIntakeIdOf(edit), { state: "done", result: "steered", into: intakeIdOf(root) }]]);
    expect(failuresOf(record([root], twoAnswers, { edits: [edit], outcomes: steered, modelRequests: asked })).answeredOnce).toEqual([
      expect.stringMatching(/^m1 .*answered 2 times:/),
    ]);
    expect(failuresOf(record([root], () => {}, { edits: [edit], outcomes: ranAlone, modelRequests: asked })).answeredOnce).toEqual([
      expect.stringMatching(/^m1 .*answered 1 times \(2 due: 1 of its edits ran on their own\)/),
    ]);
  });

  it("name a steer, a burst message or an edit acknowledged and never in a run's request", () => {
    const [root, added] = [talk(1, "root"), talk(2, "burst")];
    const edit = { n: 1, channel: "C0SOAKTALK", ts: root.ts, editedTs: "1800000009.000200", text: "soak m1 talk edited", ackedAt: 3 };
    const lost = record([root, added], (observed) => observed.answers.delete(2), { edits: [edit], modelRequests: ["soak m1 talk"] });
    expect(failuresOf(lost).addedReachedARun).toEqual([
      expect.stringMatching(/^m2 .*sent as burst and acknowledged, never in a run's request/),
      expect.stringMatching(/^the edit of m1 to "soak m1 talk edited" .*never in a run's request/),
    ]);
  });

  it("name a question deleted before it ran that was answered, or that ran", () => {
    const [root, other] = [talk(1, "root"), talk(2, "other", { deletedBeforeRun: true })];
    const deleted = outcomes([[other, { state: "done", result: "deleted" }]]);
    const fine = record([root, other], (observed) => observed.answers.delete(2), { outcomes: deleted });
    expect(failuresOf(fine).noAnswerForDeletedQuestion).toEqual([]);
    expect(failuresOf(fine).answeredOnce).toEqual([]);
    const answered = record([root, other], () => {}, { outcomes: deleted });
    expect(failuresOf(answered).noAnswerForDeletedQuestion).toEqual([
      expect.stringMatching(/^m2 .*deleted before it ran, answered 1 times/),
    ]);
    const ran = record([root, other], (observed) => observed.answers.delete(2), {
      outcomes: outcomes([[other, { state: "done", result: "answered" }]]),
    });
    expect(failuresOf(ran).noAnswerForDeletedQuestion).toEqual([
      expect.stringMatching(/^m2 .*deleted before it ran, yet done \(answered\)/),
    ]);
  });
});
