// What a run is given while it works (steering.ts), against the store it reads: an edit of its
// question recorded just before the store blinked (a Redis restart) still joins the run once the
// store is back, rather than being answered on its own after the answer; a store that stays down
// gives the run nothing, and the edit waits to run after it.
import { afterEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "../../../src/logger.js";
import type { KeyValueStore } from "../../../src/memory/types.js";
import { createInbox } from "../../../src/runs/intake/inbox.js";
import { createIntakeStore, type IntakeRecord } from "../../../src/runs/intake/intake-store.js";
import { steeringOf } from "../../../src/runs/worker/steering.js";
import { mapStore } from "../../support/map-store.js";
import { slackAsked } from "../../support/slack-origins.js";

const origin = slackAsked("U0ALICE", "C0GENERAL");

const record = (id: string, text: string, sentOrder: string, extra: Partial<IntakeRecord["task"]> = {}): IntakeRecord => ({
  version: 1,
  id,
  state: "received",
  owner: "boot",
  receivedAt: 1_000,
  task: { origin, text, sentOrder, ...extra },
});

/** A store whose index reads fail `times` times, as while Redis restarts. */
function blinking(times: number): { store: KeyValueStore; reads: () => number } {
  const real = mapStore();
  let failures = times;
  let reads = 0;
  return {
    store: {
      ...real,
      indexRange: async (...args) => {
        reads += 1;
        if (failures-- > 0) throw new Error("store went away");
        return real.indexRange(...args);
      },
    },
    reads: () => reads,
  };
}

async function runWithEdit(store: KeyValueStore) {
  const intake = createIntakeStore(store);
  const inbox = createInbox(store);
  const question = record("q1", "summarise #releases", "1700000000.000100");
  const edit = record("e1", "summarise #deploys", "1700000001.000100", { edits: "q1" });
  await intake.receive(edit);
  await inbox.add(origin.conversationKey, edit.id, edit.receivedAt);
  const steering = steeringOf(
    { intake, inbox, deps: { conversations: { debounceMs: 0, policyFor: () => "queue" }, logger: silentLogger } },
    {
      ...question,
      state: "running",
    },
  );
  return { steering, intake };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the messages a run is given while it works", () => {
  it("waits for a store that blinks: the edit recorded before it joins the run", async () => {
    const { store, reads } = blinking(2);
    const { steering } = await runWithEdit(store);
    expect(await steering.pending([])).toEqual([{ id: "e1", kind: "edited", text: "summarise #deploys" }]);
    expect(reads()).toBe(3);
  });

  it("gives nothing when the store stays down, and the edit stays waiting to run on its own", async () => {
    const { store } = blinking(Number.POSITIVE_INFINITY);
    const { steering, intake } = await runWithEdit(store);
    // The retries' waits pass on a fake clock: what counts is that they end.
    vi.useFakeTimers();
    const given = steering.pending([]);
    await vi.runAllTimersAsync();
    expect(await given).toEqual([]);
    vi.useRealTimers();
    const edit = await intake.load("e1");
    expect(edit.kind === "found" && edit.record.state).toBe("received");
  });
});
