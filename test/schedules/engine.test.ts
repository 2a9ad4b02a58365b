// Schedules on the SQLite default, through the real runner, on a clock the test moves: a slot
// fires once and posts once, as its owner, in its channel; it survives a restart; missed slots
// don't come back in a burst; cancel stops the next slot.
import { describe, expect, it } from "vitest";
import { ScriptedModel } from "../support/model-scripted.js";
import { createAuditLog } from "../../src/governance/audit-log.js";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import { createLocalSlotTimer } from "../../src/schedules/local-slot-timer.js";
import { createScheduleStore } from "../../src/schedules/schedule-store.js";
import { until } from "../support/until.js";
import { advanceTo, answers, at, auditKinds, schedule, useScheduleBots } from "../support/schedule-harness.js";
import { manualClock, slackCaller } from "../support/schedule-harness.js";

const { bot, stop, freshStore } = useScheduleBots();

describe("a schedule fires and posts once per slot", () => {
  it("every weekday at 9:00: the reply names it and its next three times; each slot runs once, as the owner, in the channel", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z")); // a Friday
    const model = new ScriptedModel([], { whenExhausted: { text: "Two releases shipped." } });
    const timer = createLocalSlotTimer(silentLogger, clock);
    const target = await bot({ clock, model, timer });
    const created = await schedule(target, "every weekday at 9:00 Europe/Berlin: summarise #releases");
    if (created.kind !== "created") throw new Error(created.reply);
    const id = created.schedule.id;
    expect(id).toMatch(/^sch_[a-z0-9]{8}$/);
    expect(created.reply).toBe(
      `Scheduled ${id}: \`every weekday at 9:00 Europe/Berlin\`. Next: 2027-01-18 09:00 Europe/Berlin (Mon), 2027-01-19 09:00 Europe/Berlin (Tue), 2027-01-20 09:00 Europe/Berlin (Wed). Results will be posted in this channel, each run in a thread of its own. Cancel with \`unschedule ${id}\`.`,
    );

    await advanceTo(target, clock, "2027-01-18T07:59:59Z");
    expect(model.requests).toHaveLength(0);
    await advanceTo(target, clock, "2027-01-18T08:00:00Z", 1);
    expect(answers(target)).toEqual(["Two releases shipped."]);
    const { origin } = target.shown[0]!;
    expect(origin).toMatchObject({
      surface: "slack",
      requester: { id: "U1", name: "Ana" },
      place: { team: "T1", channel: "C1" },
      schedule: { scheduleId: id, slotAt: at("2027-01-18T08:00:00Z"), late: false, thread: "per_slot", timeZone: "Europe/Berlin" },
    });
    const question = model.requests[0]!.messages.filter((message) => message.role === "user").pop()!.content;
    expect(question).toContain("summarise #releases");
    expect(question).toContain("answer exactly [SILENT]");

    // The slot that ran armed again (a redelivered timer job): nothing runs, the next slot stays armed.
    await timer.arm(id, at("2027-01-18T08:00:00Z"));
    await advanceTo(target, clock, "2027-01-18T08:00:30Z");
    expect(model.requests).toHaveLength(1);
    await advanceTo(target, clock, "2027-01-19T08:00:00Z", 2);
    expect(target.shown.map((entry) => entry.origin.schedule?.slotAt)).toEqual([at("2027-01-18T08:00:00Z"), at("2027-01-19T08:00:00Z")]);
    expect(model.requests).toHaveLength(2);
    expect(target.counted.filter((entry) => entry.kind === "slot")).toEqual([
      { kind: "slot", outcome: "on_time", count: 1 },
      { kind: "slot", outcome: "on_time", count: 1 },
    ]);
    // On-time slots are counted, not audited one by one.
    expect(await auditKinds(target)).toEqual(["schedule_created"]);
  });

  it("the next three times are shown right across daylight saving (Europe/Berlin, March and October)", async () => {
    const clock = manualClock(at("2027-03-26T12:00:00Z"));
    const target = await bot({ clock, model: new ScriptedModel([]) });
    expect((await schedule(target, "every day at 2:30 Europe/Berlin: nightly report")).reply).toContain(
      "Next: 2027-03-27 02:30 Europe/Berlin (Sat), 2027-03-28 03:00 Europe/Berlin (Sun), 2027-03-29 02:30 Europe/Berlin (Mon).",
    );
    clock.advanceTo(at("2027-10-29T12:00:00Z"));
    expect((await schedule(target, "cron 30 2 * * * Europe/Berlin: nightly report", slackCaller("U2"))).reply).toContain(
      "Next: 2027-10-30 02:30 Europe/Berlin (Sat), 2027-10-31 02:30 Europe/Berlin (Sun), 2027-11-01 02:30 Europe/Berlin (Mon).",
    );
  });

  it("in 20 minutes: fires exactly 20 minutes after the request, once, and then the schedule has ended", async () => {
    const clock = manualClock(at("2027-01-15T12:00:07.250Z"));
    const model = new ScriptedModel([], { whenExhausted: { text: "The deploy is green." } });
    const target = await bot({ clock, model });
    const created = await schedule(target, "in 20 minutes: check the deploy");
    if (created.kind !== "created") throw new Error(created.reply);
    expect(created.reply).toContain("It runs at 2027-01-15 12:20 UTC (Fri).");
    await advanceTo(target, clock, "2027-01-15T12:20:07.249Z");
    expect(model.requests).toHaveLength(0);
    await advanceTo(target, clock, "2027-01-15T12:20:07.250Z", 1);
    expect(target.shown[0]!.origin.schedule).toMatchObject({
      slotAt: at("2027-01-15T12:20:07.250Z"),
      firedAt: at("2027-01-15T12:20:07.250Z"),
    });
    const listed = await target.schedules.run({ name: "schedules", text: "", caller: slackCaller("U1") });
    expect(listed.reply).toBe("You have no schedules. Make one with `schedule <when>: <what>`.");
    await advanceTo(target, clock, "2027-01-16T12:00:00Z");
    expect(model.requests).toHaveLength(1);
  });

  it("a slot fired again after a crash lost its bookkeeping is one intake record: it runs once", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const model = new ScriptedModel([], { whenExhausted: { text: "hourly note" } });
    const storeUrl = freshStore();
    const first = await bot({ clock, model, storeUrl });
    const created = await schedule(first, "every hour UTC: note the queue depth");
    if (created.kind !== "created") throw new Error(created.reply);
    await advanceTo(first, clock, "2027-01-15T13:00:00Z", 1);
    await stop(first);
    // As if the process died after the slot's intake was recorded but before the schedule moved on.
    const raw = await openStore(storeUrl, silentLogger);
    await createScheduleStore(raw).update(created.schedule.id, (record) => ({ ...record, nextSlot: at("2027-01-15T13:00:00Z") }));
    await raw.close();

    clock.advanceTo(at("2027-01-15T13:00:20Z"));
    const second = await bot({ clock, model, storeUrl });
    await advanceTo(second, clock, "2027-01-15T13:00:30Z");
    expect(model.requests).toHaveLength(1);
    expect(second.shown).toHaveLength(0);
    const [stored] = await second.schedules.book.list(slackCaller("U1"), false);
    expect(stored!.nextSlot).toBe(at("2027-01-15T14:00:00Z"));
  });
});

describe("across restarts and downtime", () => {
  it("a schedule survives a restart: the next process arms it from the store and fires it", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const model = new ScriptedModel([], { whenExhausted: { text: "digest" } });
    const storeUrl = freshStore();
    const first = await bot({ clock, model, storeUrl });
    await schedule(first, "every day at 9:00 UTC: the digest");
    await stop(first);
    const second = await bot({ clock, model, storeUrl });
    await advanceTo(second, clock, "2027-01-16T09:00:00Z", 1);
    expect(answers(second)).toEqual(["digest"]);
  });

  it("3 hours down with an hourly schedule: one late run at the start, two slots skipped and reported, no burst", async () => {
    const clock = manualClock(at("2027-01-18T08:30:00Z"));
    const model = new ScriptedModel([], { whenExhausted: { text: "Queue is short." } });
    const storeUrl = freshStore();
    const first = await bot({ clock, model, storeUrl });
    const created = await schedule(first, "every hour UTC: check the queue");
    if (created.kind !== "created") throw new Error(created.reply);
    await advanceTo(first, clock, "2027-01-18T09:00:00Z", 1);
    await stop(first);

    clock.advanceTo(at("2027-01-18T12:30:00Z")); // down 09:30 → 12:30: 10:00, 11:00 and 12:00 missed
    const second = await bot({ clock, model, storeUrl });
    // The start arms the missed slot for now: it fires at once.
    await advanceTo(second, clock, "2027-01-18T12:30:00Z", 1);
    expect(model.requests).toHaveLength(2);
    expect(answers(second)).toEqual(["Queue is short.\n\n(late: due 12:00, ran 12:30; 2 earlier slots skipped)"]);
    expect(second.shown[0]!.origin.schedule).toMatchObject({ slotAt: at("2027-01-18T12:00:00Z"), late: true, skipped: 2 });
    expect(await auditKinds(second)).toEqual(["schedule_created", "slot_late", "slot_skipped"]);
    const skipped = (await createAuditLog(second.store).list({ limit: 1 }))[0]!;
    expect(skipped.schedule).toMatchObject({ id: created.schedule.id, skipped: 2, slotAt: at("2027-01-18T11:00:00Z") });
    expect(second.counted.filter((entry) => entry.kind === "slot")).toEqual([
      { kind: "slot", outcome: "late", count: 1 },
      { kind: "slot", outcome: "skipped", count: 2 },
    ]);
    const [stored] = await second.schedules.book.list(slackCaller("U1"), false);
    expect(stored).toMatchObject({ skippedSlots: 2, nextSlot: at("2027-01-18T13:00:00Z"), lastSlot: at("2027-01-18T12:00:00Z") });
    // And on it goes, on time.
    await advanceTo(second, clock, "2027-01-18T13:00:00Z", 2);
    expect(answers(second)[1]).toBe("Queue is short.");
  });

  it("down longer than SCHEDULE_CATCH_UP_MINUTES: nothing runs late, every missed slot is skipped", async () => {
    const clock = manualClock(at("2027-01-18T08:30:00Z"));
    const model = new ScriptedModel([], { whenExhausted: { text: "hi" } });
    const storeUrl = freshStore();
    const env = { SCHEDULE_CATCH_UP_MINUTES: "20" };
    const first = await bot({ clock, model, storeUrl, env });
    await schedule(first, "every hour UTC: check the queue");
    await stop(first);
    clock.advanceTo(at("2027-01-18T11:30:00Z"));
    const second = await bot({ clock, model, storeUrl, env });
    await advanceTo(second, clock, "2027-01-18T11:30:00Z");
    expect(model.requests).toHaveLength(0);
    expect(await auditKinds(second)).toEqual(["schedule_created", "slot_skipped"]);
    const [stored] = await second.schedules.book.list(slackCaller("U1"), false);
    expect(stored).toMatchObject({ skippedSlots: 3, nextSlot: at("2027-01-18T12:00:00Z") });
  });

  it("cancel stops the next slot; only the owner or an admin may cancel", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const model = new ScriptedModel([], { whenExhausted: { text: "x" } });
    const target = await bot({ clock, model });
    const created = await schedule(target, "every day at 13:00 UTC: post the lunch menu");
    if (created.kind !== "created") throw new Error(created.reply);
    const id = created.schedule.id;
    const byOther = await target.schedules.run({ name: "unschedule", text: id, caller: slackCaller("U2") });
    expect(byOther).toEqual({ kind: "refused", reply: `${id} belongs to Ana; only they or an admin can change it.` });
    const cancelled = await target.schedules.run({
      name: "unschedule",
      text: ` ${id.toUpperCase()} `,
      caller: slackCaller("U1", { name: "Ana" }),
    });
    expect(cancelled.reply).toBe(`Cancelled ${id}: \`every day at 13:00 UTC\` runs no more.`);
    await advanceTo(target, clock, "2027-01-16T14:00:00Z");
    expect(model.requests).toHaveLength(0);
    const again = await target.schedules.run({ name: "unschedule", text: id, caller: slackCaller("U9", { isAdmin: true }) });
    expect(again.reply).toBe(`${id} has ended already (cancelled by Ana).`);
    expect((await target.schedules.run({ name: "unschedule", text: "sch_zzzzzzzz", caller: slackCaller("U1") })).reply).toBe(
      "There is no schedule sch_zzzzzzzz. `schedules` lists yours.",
    );
    expect((await target.schedules.run({ name: "unschedule", text: "42", caller: slackCaller("U1") })).reply).toContain(
      "expects a schedule id like sch_ab12cd34",
    );
    expect(await auditKinds(target)).toEqual(["schedule_created", "schedule_cancelled"]);
  });
});

describe("pause and resume by a person", () => {
  it("a paused schedule does not fire; resumed, it goes on from the next slot (missed ones are not made up)", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const model = new ScriptedModel([], { whenExhausted: { text: "menu" } });
    const target = await bot({ clock, model });
    const created = await schedule(target, "every day at 13:00 UTC: post the lunch menu");
    if (created.kind !== "created") throw new Error(created.reply);
    const id = created.schedule.id;
    const ana = slackCaller("U1", { name: "Ana" });
    expect((await target.schedules.run({ name: "pause", text: id, caller: ana })).reply).toBe(
      `Paused ${id}: \`every day at 13:00 UTC\` runs no more until \`resume ${id}\`.`,
    );
    expect((await target.schedules.run({ name: "pause", text: id, caller: ana })).reply).toBe(
      `${id} is paused already; \`resume ${id}\` starts it again.`,
    );
    await advanceTo(target, clock, "2027-01-17T12:00:00Z");
    expect(model.requests).toHaveLength(0);
    await target.schedules.run({ name: "resume", text: id, caller: ana });
    await advanceTo(target, clock, "2027-01-17T13:00:00Z", 1);
    expect(target.shown.map((entry) => entry.origin.schedule?.slotAt)).toEqual([at("2027-01-17T13:00:00Z")]);
    expect(await auditKinds(target)).toEqual(["schedule_created", "schedule_paused", "schedule_resumed"]);
  });
});

describe("create_schedule, the model's way to propose one", () => {
  it("is a write: the requester approves it, the schedule is theirs; runs a schedule started are not offered it", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const model = new ScriptedModel([
      { calls: [{ name: "create_schedule", args: { when: "every day at 9:00 UTC", what: "summarise #releases" }, id: "w1" }] },
      { text: "Done: it runs every day at 9:00 UTC." },
      { text: "Nothing shipped yesterday." },
    ]);
    const target = await bot({ clock, model });
    const origin = slackCaller("U1", { name: "Ana" }).origin;
    const asked = await target.service.ask(
      { origin: { ...origin, requester: { id: "U1", name: "Ana" } }, text: "post a release digest every morning" },
      () => {},
    );
    expect(asked.status).toBe("paused");
    if (asked.status !== "paused") return;
    expect(asked.pending).toMatchObject({ tool: "create_schedule", requester: { id: "U1" } });
    expect(await target.schedules.book.list(slackCaller("U1"), false)).toHaveLength(0);

    const refused = await target.service.decide(
      { runId: asked.runId, callId: "w1", decision: "approve", decidedBy: { id: "U2" } },
      () => {},
    );
    expect(refused.kind).toBe("not_allowed");
    await target.service.decide({ runId: asked.runId, callId: "w1", decision: "approve", decidedBy: { id: "U1" } }, () => {});
    await until(() => target.shown.length === 1, "the answer after the approval");
    const [made] = await target.schedules.book.list(slackCaller("U1"), false);
    expect(made).toMatchObject({ owner: { id: "U1", name: "Ana" }, createdVia: "tool", what: "summarise #releases" });
    const observation = model.requests[1]!.messages.find((message) => message.role === "tool")!.content;
    expect(observation).toContain(`Scheduled ${made!.id}: \`every day at 9:00 UTC\`. Next: 2027-01-16 09:00 UTC (Sat)`);

    await advanceTo(target, clock, "2027-01-16T09:00:00Z", 2);
    expect(answers(target)[1]).toBe("Nothing shipped yesterday.");
    const offered = model.requests.map((request) => request.tools.map((tool) => tool.name).includes("create_schedule"));
    expect(offered).toEqual([true, true, false]);
  });

  it("a refusal (no timezone, a limit) goes back to the model as an error it can act on", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const model = new ScriptedModel([
      { calls: [{ name: "create_schedule", args: { when: "every day at 9:00", what: "digest" }, id: "w1" }] },
      { text: "Which timezone should I use?" },
    ]);
    const target = await bot({ clock, model, env: { TOOL_POLICY: "create_schedule=allow" } });
    const outcome = await target.service.ask({ origin: slackCaller("U1").origin, text: "daily digest please" }, () => {});
    expect(outcome).toMatchObject({ status: "answered", answer: "Which timezone should I use?" });
    const observation = model.requests[1]!.messages.find((message) => message.role === "tool")!.content;
    expect(observation).toContain("Which timezone? Add one to the time");
    expect(await target.schedules.book.list(slackCaller("U1"), false)).toHaveLength(0);
  });
});
