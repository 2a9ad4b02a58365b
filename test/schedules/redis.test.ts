// Schedules on Redis, shared by several bot processes (each here a full service with its own
// connections: store, BullMQ work queue, BullMQ slot timer): each slot is a delayed job with an
// id derived from the schedule and slot time, so two processes arming it add one job, and the
// slot's intake record makes it run once. Real delays, made short by a clock that reads a few
// seconds before a minute boundary (its delays are relative, so BullMQ waits exactly as long).
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { ScriptedModel } from "../support/model-scripted.js";
import { silentLogger } from "../../src/logger.js";
import { createBullmqWorkQueue } from "../../src/runs/queue/bullmq-work-queue.js";
import { createBullmqSlotTimer } from "../../src/schedules/bullmq-slot-timer.js";
import type { TimerClock } from "../../src/schedules/local-slot-timer.js";
import { until } from "../support/until.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { describeWithRedis } from "../support/redis-suite.js";
import { slackCaller, startScheduleBot, type ScheduleBot } from "../support/schedule-harness.js";

let server: RedisServer;
let names = 0;
const bots: ScheduleBot[] = [];
beforeAll(async () => {
  server = await startRedisServer();
});
afterEach(async () => {
  await Promise.all(bots.splice(0).map((bot) => bot.close()));
  const redis = new Redis(server.url);
  await redis.flushdb();
  redis.disconnect();
});
afterAll(async () => {
  await server?.stop();
});

/** A real clock that reads `lead` ms before the next minute boundary now (at least 1 s of real time later). */
function clockBeforeMinute(leadMs: number): TimerClock & { readonly boundary: number } {
  const real = Date.now();
  const boundary = Math.ceil((real + 60_000) / 60_000) * 60_000;
  const offset = boundary - leadMs - real;
  return {
    boundary,
    now: () => Date.now() + offset,
    setTimeout: (callback, ms) => setTimeout(callback, ms),
    clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  };
}

/** One bot process on the shared Redis: store, work queue and slot timer of its own, named for this test. */
async function process(clock: TimerClock, name: string, model: ScriptedModel): Promise<ScheduleBot> {
  const bot = await startScheduleBot({
    storeUrl: server.url,
    clock,
    model,
    env: { SCHEDULE_MIN_INTERVAL_MINUTES: "1", APPROVAL_SECRET: "a-test-secret-of-enough-length" },
    queue: createBullmqWorkQueue({ redisUrl: server.url, name: `${name}-work`, logger: silentLogger }),
    timer: createBullmqSlotTimer({ redisUrl: server.url, name: `${name}-slots`, logger: silentLogger, clock: clock.now }),
  });
  bots.push(bot);
  return bot;
}

async function delayedSlots(name: string): Promise<number> {
  const queue = new Queue(`${name}-slots`, { connection: { url: server.url } });
  try {
    return await queue.getDelayedCount();
  } finally {
    await queue.close();
  }
}

const everyMinute = (bot: ScheduleBot, what: string, user = "U1") =>
  bot.schedules.run({ name: "schedule", text: `every minute UTC: ${what}`, caller: slackCaller(user) });
const slotsShown = (processes: readonly ScheduleBot[]) =>
  processes.flatMap((bot) => bot.shown.map((entry) => `${entry.origin.schedule?.scheduleId}@${entry.origin.schedule?.slotAt}`));

describeWithRedis("schedules on Redis", () => {
  it("two processes: every slot runs once, whichever process fires it; arming a slot twice adds one job", async () => {
    const name = `two-${++names}`;
    const clock = clockBeforeMinute(3_000);
    const model = new ScriptedModel([], { whenExhausted: { text: "report" } });
    const first = await process(clock, name, model);
    const ids: string[] = [];
    for (const [index, user] of ["U1", "U2", "U3", "U4", "U5", "U6"].entries()) {
      const made = await everyMinute(first, `task ${index}`, user);
      if (made.kind !== "created") throw new Error(made.reply);
      ids.push(made.schedule.id);
    }
    const second = await process(clock, name, model);
    // Another process arming the same slots (a start's check, a redelivery) adds no job.
    const other = createBullmqSlotTimer({ redisUrl: server.url, name: `${name}-slots`, logger: silentLogger, clock: clock.now });
    for (const id of ids) await other.arm(id, clock.boundary);
    await other.close();
    expect(await delayedSlots(name)).toBe(6);

    await until(() => slotsShown([first, second]).length >= 6, "six slots shown", 15_000);
    await Promise.all([first.settle(), second.settle()]);
    expect(slotsShown([first, second]).sort()).toEqual(ids.map((id) => `${id}@${clock.boundary}`).sort());
    expect(model.requests).toHaveLength(6);
    // Each schedule armed its next slot once.
    await until(async () => (await delayedSlots(name)) === 6, "the next six slots armed");
    const [stored] = await second.schedules.book.list(slackCaller("U1"), false);
    expect(stored!.nextSlot).toBe(clock.boundary + 60_000);
  }, 30_000);

  it("a schedule survives a restart: the process that starts next fires it", async () => {
    const name = `restart-${++names}`;
    const clock = clockBeforeMinute(3_000);
    const model = new ScriptedModel([], { whenExhausted: { text: "after the restart" } });
    const first = await process(clock, name, model);
    const made = await everyMinute(first, "still here?");
    if (made.kind !== "created") throw new Error(made.reply);
    bots.splice(bots.indexOf(first), 1);
    await first.close();
    const second = await process(clock, name, model);
    await until(() => second.shown.length === 1, "the slot shown by the new process", 15_000);
    expect(second.shown[0]!.origin.schedule).toMatchObject({ scheduleId: made.schedule.id, slotAt: clock.boundary, late: false });
  }, 30_000);

  it("cancel removes the next slot's job; the schedule does not fire", async () => {
    const name = `cancel-${++names}`;
    const clock = clockBeforeMinute(2_500);
    const model = new ScriptedModel([], { whenExhausted: { text: "kept" } });
    const bot = await process(clock, name, model);
    const kept = await everyMinute(bot, "kept");
    const cancelled = await everyMinute(bot, "cancelled");
    if (kept.kind !== "created" || cancelled.kind !== "created") throw new Error("not created");
    await bot.schedules.run({ name: "unschedule", text: cancelled.schedule.id, caller: slackCaller("U1") });
    expect(await delayedSlots(name)).toBe(1);
    await until(() => bot.shown.length === 1, "the kept schedule's slot", 15_000);
    await bot.settle();
    expect(slotsShown([bot])).toEqual([`${kept.schedule.id}@${clock.boundary}`]);
  }, 30_000);
});
