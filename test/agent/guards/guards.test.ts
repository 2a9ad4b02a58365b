import { describe, expect, it } from "vitest";
import { checkErrorStreak, nextErrorStreak } from "../../../src/agent/guards/consecutive-errors.js";
import { deadlineStop } from "../../../src/agent/guards/deadline.js";
import { approvalExpiredStop, modelUnavailableStop } from "../../../src/agent/guards/external-stops.js";
import { checkOscillation, oscillationMemory } from "../../../src/agent/guards/oscillation.js";
import { checkRepeat, REPEAT_TRIP_AT, repeatWarning, type RepeatState } from "../../../src/agent/guards/repeat.js";
import { checkStepLimit } from "../../../src/agent/guards/step-limit.js";
import { tokenStop, watermark } from "../../../src/agent/guards/token-watermark.js";
import type { CallOutcome } from "../../../src/contracts/types.js";

describe("step limit", () => {
  it("lets every step below the cap through", () => {
    expect(checkStepLimit(0, 10)).toBeUndefined();
    expect(checkStepLimit(9, 10)).toBeUndefined();
  });

  it("stops at the cap with a plain sentence", () => {
    const stop = checkStepLimit(10, 10);
    expect(stop?.guard).toBe("steps");
    expect(stop?.detail).toBe("10 model calls reached the cap of 10");
    expect(stop?.sentence).toBe("Stopped: the step limit of 10 model calls was reached.");
  });

  it("stays stopped past the cap", () => {
    expect(checkStepLimit(11, 10)?.guard).toBe("steps");
    expect(checkStepLimit(1, 1)?.guard).toBe("steps");
  });
});

describe("repeat", () => {
  const fresh: RepeatState = { streak: 0 };
  const feed = (signatures: readonly string[]) => {
    let state = fresh;
    return signatures.map((signature) => {
      const verdict = checkRepeat(state, signature, signature.split("#")[0]!);
      state = verdict.state;
      return verdict;
    });
  };

  it("runs the first call, warns on the second identical one, trips on the third", () => {
    const verdicts = feed(["lookup#a", "lookup#a", "lookup#a"]);
    expect(verdicts.map((verdict) => verdict.kind)).toEqual(["run", "warn", "trip"]);
    expect(verdicts.map((verdict) => verdict.state.streak)).toEqual([1, 2, 3]);
    expect(REPEAT_TRIP_AT).toBe(3);
  });

  it("names the tool and the count when it trips", () => {
    const last = feed(["lookup#a", "lookup#a", "lookup#a"]).at(-1)!;
    if (last.kind !== "trip") throw new Error("expected a trip");
    expect(last.stop.guard).toBe("repeat");
    expect(last.stop.detail).toBe("lookup was called 3 times in a row with the same arguments");
    expect(last.stop.sentence).toBe("Stopped: the same call (lookup) was repeated 3 times.");
  });

  it("keeps tripping if the model carries on", () => {
    expect(feed(["t#a", "t#a", "t#a", "t#a"]).map((verdict) => verdict.kind)).toEqual(["run", "warn", "trip", "trip"]);
  });

  it("resets the streak when a different signature comes in between", () => {
    const verdicts = feed(["t#a", "t#a", "t#b", "t#a", "t#a"]);
    expect(verdicts.map((verdict) => verdict.kind)).toEqual(["run", "warn", "run", "run", "warn"]);
    expect(verdicts[2]!.state).toEqual({ lastSignature: "t#b", streak: 1 });
  });

  it("treats the same arguments for another tool as a different call", () => {
    expect(feed(["a#x", "b#x", "a#x"]).map((verdict) => verdict.kind)).toEqual(["run", "run", "run"]);
  });

  it("warns the model in words that say what happened and what to do", () => {
    const warning = repeatWarning("lookup");
    expect(warning).toContain("lookup");
    expect(warning).toMatch(/not run again/);
    expect(warning).toMatch(/third time stops the run/);
  });
});

describe("oscillation", () => {
  const toolOf = (signature: string) => signature.split("#")[0] ?? signature;
  const check = (recent: readonly string[], window = 6) => checkOscillation(recent, window, toolOf);

  it("stops ping-pong A B A B A B as a cycle of 2", () => {
    const stop = check(["calc#1", "time#1", "calc#1", "time#1", "calc#1", "time#1"]);
    expect(stop?.guard).toBe("oscillation");
    expect(stop?.detail).toBe("cycle of 2 calls repeated 3 times: calc → time");
    expect(stop?.sentence).toBe("Stopped: the agent was going in circles (calc → time, three times over).");
  });

  it("does not call A B A B A a cycle yet", () => {
    expect(check(["a#1", "b#1", "a#1", "b#1", "a#1"])).toBeUndefined();
  });

  it("stops A B C three times over as a cycle of 3", () => {
    const cycle = ["a#1", "b#1", "c#1"];
    const stop = check([...cycle, ...cycle, ...cycle]);
    expect(stop?.detail).toBe("cycle of 3 calls repeated 3 times: a → b → c");
  });

  it("does not stop A B C repeated only twice and a half", () => {
    expect(check(["c#1", "a#1", "b#1", "c#1", "a#1", "b#1", "c#1", "a#1"])).toBeUndefined();
  });

  it("stops one signature holding more than 60 % of a full window", () => {
    const stop = check(["a#1", "b#1", "a#1", "c#1", "a#1", "a#1"]);
    expect(stop?.detail).toBe("a made 4 of the last 6 calls with the same arguments");
    expect(stop?.sentence).toBe("Stopped: the agent kept coming back to the same call (a, 4 of the last 6).");
  });

  it("does not stop a share of exactly 60 %", () => {
    expect(check(["a#1", "b#1", "a#1", "c#1", "a#1"], 5)).toBeUndefined();
    expect(check(["a#1", "a#1", "b#1", "a#1", "a#1"], 5)?.detail).toMatch(/4 of the last 5/);
  });

  it("waits for the window to fill before judging shares", () => {
    expect(check(["a#1", "b#1", "a#1", "a#1"])).toBeUndefined();
  });

  it.each([2, 6, 10, 12, 25, 50])("keeps enough history for a window of %i, and the share rule fires at it", (window) => {
    expect(oscillationMemory(window)).toBeGreaterThanOrEqual(window);
    const mostlyA = Array.from({ length: window }, (_, index) => (index % 4 === 3 ? `other#${index}` : "a#1"));
    const kept = mostlyA.slice(-oscillationMemory(window));
    expect(check(kept.slice(1), window)).toBeUndefined();
    expect(check(kept, window)?.guard).toBe("oscillation");
  });

  it("does not stop a first call, whatever the window", () => {
    expect(check(["a#1"], 1)).toBeUndefined();
    expect(check(["a#1", "b#1"], 1)).toBeUndefined();
  });

  it("judges only the latest window", () => {
    expect(check(["a#1", "a#1", "a#1", "b#1", "c#1", "d#1", "e#1", "f#1", "g#1"])).toBeUndefined();
  });

  it("does not take A A B B A A for a cycle (it is caught by the share rule instead)", () => {
    const stop = check(["a#1", "a#1", "b#1", "b#1", "a#1", "a#1"]);
    expect(stop?.detail).not.toMatch(/cycle/);
    expect(stop?.detail).toMatch(/4 of the last 6/);
  });

  it("lets A A B B C C through", () => {
    expect(check(["a#1", "a#1", "b#1", "b#1", "c#1", "c#1"])).toBeUndefined();
  });

  it("does not report one signature six times over as a cycle", () => {
    expect(check(Array(6).fill("a#1"))?.detail).toBe("a made 6 of the last 6 calls with the same arguments");
  });

  it("tells the same tool with different arguments apart", () => {
    expect(check(["calc#1", "calc#2", "calc#3", "calc#4", "calc#5", "calc#6"])).toBeUndefined();
  });
});

describe("consecutive errors", () => {
  const failures: Array<CallOutcome | "empty_reply"> = ["error", "invalid_args", "unknown_tool", "timeout", "empty_reply"];
  const neutral: CallOutcome[] = ["repeated", "denied", "needs_approval", "blocked"];

  it.each(failures)("counts %s as a failure", (outcome) => {
    expect(nextErrorStreak(0, outcome)).toBe(1);
    expect(nextErrorStreak(2, outcome)).toBe(3);
  });

  it("resets the streak on a success", () => {
    expect(nextErrorStreak(2, "ok")).toBe(0);
  });

  it.each(neutral)("leaves the streak as it is on %s", (outcome) => {
    expect(nextErrorStreak(0, outcome)).toBe(0);
    expect(nextErrorStreak(2, outcome)).toBe(2);
  });

  it("stops when the streak reaches the threshold, not before", () => {
    expect(checkErrorStreak(0, 3)).toBeUndefined();
    expect(checkErrorStreak(2, 3)).toBeUndefined();
    const stop = checkErrorStreak(3, 3);
    expect(stop?.guard).toBe("errors");
    expect(stop?.detail).toBe("3 failures in a row");
    expect(stop?.sentence).toBe("Stopped: 3 attempts in a row failed (tool calls or empty replies).");
  });

  it("stops at a threshold of 1 on the first failure", () => {
    expect(checkErrorStreak(nextErrorStreak(0, "timeout"), 1)?.guard).toBe("errors");
  });
});

describe("token watermarks", () => {
  const budget = 1_000;

  it.each([
    [0, "green"],
    [649, "green"],
    [650, "yellow"],
    [799, "yellow"],
    [800, "orange"],
    [899, "orange"],
    [900, "red"],
    [1_500, "red"],
  ] as const)("%i of 1000 tokens is %s", (used, level) => {
    expect(watermark(used, budget)).toBe(level);
  });

  it("puts the boundaries at exactly 65 %, 80 % and 90 % of a budget that does not divide evenly", () => {
    const odd = 125_952;
    expect(watermark(Math.ceil(odd * 0.65) - 1, odd)).toBe("green");
    expect(watermark(Math.ceil(odd * 0.65), odd)).toBe("yellow");
    expect(watermark(Math.ceil(odd * 0.8), odd)).toBe("orange");
    expect(watermark(Math.ceil(odd * 0.9) - 1, odd)).toBe("orange");
    expect(watermark(Math.ceil(odd * 0.9), odd)).toBe("red");
  });

  it("reports the share in the stop", () => {
    const stop = tokenStop(912, budget);
    expect(stop.guard).toBe("tokens");
    expect(stop.detail).toBe("912 of 1000 usable context tokens (91 %)");
    expect(stop.sentence).toBe("Stopped: the conversation filled 91 % of the model's context window.");
  });
});

describe("stops from outside the model", () => {
  it("says the run's time limit as a person would", () => {
    const stop = deadlineStop(120_000);
    expect(stop.guard).toBe("deadline");
    expect(stop.detail).toBe("the run passed its 120000 ms deadline");
    expect(stop.sentence).toBe("Stopped: the run took longer than its time limit of 2 minutes.");
    expect(deadlineStop(90_000).sentence).toBe("Stopped: the run took longer than its time limit of 90 seconds.");
  });

  it("never says a limit under a second is zero seconds", () => {
    expect(deadlineStop(400).sentence).toBe("Stopped: the run took longer than its time limit of 400 ms.");
    expect(deadlineStop(1_500).sentence).toBe("Stopped: the run took longer than its time limit of 1.5 seconds.");
    expect(deadlineStop(1_000).sentence).toBe("Stopped: the run took longer than its time limit of 1 second.");
    expect(approvalExpiredStop("post_message", 20_000).sentence).toBe(
      "Stopped: nobody approved post_message within 20 seconds, so it did not run.",
    );
  });

  it("says what failed and the fix, and offers another try only when one can help", () => {
    const down = modelUnavailableStop({ cause: "the model server is failing (503)", fix: "check the model server", retryable: true });
    expect(down.guard).toBe("model_unavailable");
    expect(down.sentence).toBe("Stopped: the model server is failing (503). Check the model server, then try again.");
    expect(down.detail).toBe("the model server is failing (503): check the model server");
    const key = modelUnavailableStop({ cause: "the model server refused the key (401)", fix: "check OPENAI_API_KEY", retryable: false });
    expect(key.sentence).toBe(
      "Stopped: the model server refused the key (401). Check OPENAI_API_KEY; trying again will not help until then.",
    );
    expect(key.sentence).not.toMatch(/try again\b/i);
    expect(modelUnavailableStop({ cause: "the model call failed (boom)", fix: "", retryable: true }).sentence).toBe(
      "Stopped: the model call failed (boom). Try again in a moment.",
    );
    expect(modelUnavailableStop({ cause: "the replayed run had no model", fix: "", retryable: false }).sentence).toBe(
      "Stopped: the replayed run had no model.",
    );
  });

  it("names the tool nobody approved, with the right plural", () => {
    expect(approvalExpiredStop("post_message", 15 * 60_000).sentence).toBe(
      "Stopped: nobody approved post_message within 15 minutes, so it did not run.",
    );
    expect(approvalExpiredStop("post_message", 60_000).sentence).toBe(
      "Stopped: nobody approved post_message within 1 minute, so it did not run.",
    );
    expect(approvalExpiredStop("post_message", 60_000).guard).toBe("approval_expired");
  });
});
