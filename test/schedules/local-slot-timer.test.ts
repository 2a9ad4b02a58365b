// The in-process slot timer (the SQLite default) on a clock the test moves: one pending timer
// however many schedules are armed, slots fired at their time in order, a disarmed slot not
// fired, a failed fire tried again, nothing fired after close, far slots reached.
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logger.js";
import { createLocalSlotTimer } from "../../src/schedules/local-slot-timer.js";
import { manualClock } from "../support/schedule-harness.js";

const start = Date.parse("2027-01-15T12:00:00Z");

function timerOn(fire: (id: string, at: number) => Promise<void> = async () => {}) {
  const clock = manualClock(start);
  const fired: Array<[string, number, number]> = [];
  const timer = createLocalSlotTimer(silentLogger, clock);
  return {
    clock,
    fired,
    timer,
    begin: () =>
      timer.start(async (id, at) => {
        fired.push([id, at, clock.now()]);
        await fire(id, at);
      }),
  };
}

describe("the in-process slot timer", () => {
  it("keeps one pending timer for 10,000 schedules and fires each at its own time, earliest first", async () => {
    const { clock, fired, timer, begin } = timerOn();
    await timer.restore(Array.from({ length: 10_000 }, (_, index) => ({ id: `s${index}`, at: start + (10_000 - index) * 1_000 })));
    begin();
    expect(clock.pending()).toBe(1);
    for (let second = 0; second < 3; second++) {
      clock.advance(999);
      await timer.idle();
      expect(fired).toHaveLength(second);
      clock.advance(1);
      await timer.idle();
    }
    expect(fired).toEqual([
      ["s9999", start + 1_000, start + 1_000],
      ["s9998", start + 2_000, start + 2_000],
      ["s9997", start + 3_000, start + 3_000],
    ]);
    expect(clock.pending()).toBe(1);
    // A schedule armed earlier than the timer moves it; still one.
    await timer.arm("early", start + 3_500);
    expect(clock.pending()).toBe(1);
    clock.advance(500);
    await timer.idle();
    expect(fired.at(-1)).toEqual(["early", start + 3_500, start + 3_500]);
  });

  it("a slot armed again replaces the schedule's earlier one; a disarmed slot does not fire", async () => {
    const { clock, fired, timer, begin } = timerOn();
    begin();
    await timer.arm("a", start + 1_000);
    await timer.arm("a", start + 2_000);
    await timer.arm("b", start + 1_500);
    await timer.disarm("b", start + 1_500);
    await timer.disarm("a", start + 1_000); // not the armed one: nothing changes
    clock.advance(1_999);
    await timer.idle();
    expect(fired).toEqual([]);
    clock.advance(1);
    await timer.idle();
    clock.advance(5_000);
    await timer.idle();
    expect(fired).toEqual([["a", start + 2_000, start + 2_000]]);
  });

  it("a fire that fails is tried again 30 s later with the same slot", async () => {
    let failures = 1;
    const { clock, fired, timer, begin } = timerOn(async () => {
      if (failures-- > 0) throw new Error("store down");
    });
    begin();
    await timer.arm("a", start + 1_000);
    clock.advance(1_000);
    await timer.idle();
    clock.advance(29_999);
    await timer.idle();
    expect(fired).toHaveLength(1);
    clock.advance(1);
    await timer.idle();
    expect(fired).toEqual([
      ["a", start + 1_000, start + 1_000],
      ["a", start + 1_000, start + 31_000],
    ]);
  });

  it("reaches a slot further away than Node's longest timer, and fires nothing after close", async () => {
    const { clock, fired, timer, begin } = timerOn();
    const far = start + 40 * 24 * 3_600_000;
    await timer.arm("far", far);
    await timer.arm("closed", far + 1);
    begin();
    clock.advanceTo(far);
    await timer.idle();
    expect(fired).toEqual([["far", far, far]]);
    await timer.close();
    expect(clock.pending()).toBe(0);
    clock.advance(1_000);
    await timer.arm("later", far + 500);
    clock.advance(1_000);
    expect(fired).toHaveLength(1);
  });
});
