// The core's run view with a display that records what it is asked to show: the text a model
// streams shows at once, then at most once per the display's interval (a clock the test drives);
// the answer completes the live text, a Stop keeps what was shown; the last write of a message
// keeps the interval after the one before; and the messages a display holds open are kept in the
// store, so the view of a process that takes the run over ends them before it shows anything.
import { describe, expect, it, vi } from "vitest";
import type { Draft } from "../../../src/adapters/core/answer-draft.js";
import type { AnswerCard, Progress } from "../../../src/adapters/core/cards.js";
import { createRunView, type RunView } from "../../../src/adapters/core/run-view.js";
import type { RunDisplay } from "../../../src/adapters/core/surface.js";
import { createUnfinishedMessages, type LeftOpen, type UnfinishedMessage } from "../../../src/adapters/core/unfinished-messages.js";
import type { GuardStop } from "../../../src/contracts/types.js";
import { silentLogger } from "../../../src/logger.js";
import { manualTime, type ManualTime } from "../../support/manual-time.js";
import { mapStore } from "../../support/map-store.js";
import * as events from "../../support/stream-events.js";

const runId = "run-7";
const INTERVAL = 1_000;

interface Recorded {
  readonly display: RunDisplay<string>;
  readonly progress: Array<{ readonly at: number; readonly progress: Progress }>;
  readonly answers: Array<{ readonly at: number; readonly card: AnswerCard }>;
  readonly drafts: Draft[];
  readonly ended: Progress[];
  readonly settled: LeftOpen[][];
  open: LeftOpen[];
}

function recordingDisplay(time: ManualTime, firstsAtOnce = true): Recorded {
  const recorded: Recorded = {
    progress: [],
    answers: [],
    drafts: [],
    ended: [],
    settled: [],
    open: [],
    display: {
      progressIntervalMs: INTERVAL,
      firstsAtOnce,
      async progress(progress) {
        recorded.progress.push({ at: time.now(), progress });
      },
      draft: (draft) => void recorded.drafts.push(draft),
      async endProgress(_outcome, last) {
        recorded.ended.push(last);
      },
      async answer(card) {
        recorded.answers.push({ at: time.now(), card });
        recorded.open = [];
        return { messageId: "m1" };
      },
      approval: async () => "approval-ref",
      failure: async () => {},
      unfinished: () => recorded.open,
      settleUnfinished: async (left) => void recorded.settled.push([...left]),
    },
  };
  return recorded;
}

const viewDeps = (time: ManualTime, store: ReturnType<typeof mapStore>) => ({
  logger: silentLogger,
  refs: { remember: async () => {}, find: async () => undefined },
  deciders: { users: [], roles: [] },
  question: "what time is it?",
  unfinished: createUnfinishedMessages(store, silentLogger, "test"),
  clock: { now: time.now, sleep: time.sleep },
});

function viewOf(recorded: Recorded, time: ManualTime, store = mapStore(), mayHold?: (channels: readonly string[]) => boolean): RunView {
  return createRunView(recorded.display, { ...viewDeps(time, store), ...(mayHold ? { mayHold } : {}) });
}

const delta = (step: number, text: string) => events.delta(runId, step, text);
const answered = (answer: string, stop?: GuardStop) => events.answered(runId, answer, stop);
const liveText = (progress: Progress) => progress.draft.segments.at(-1)?.text;

describe("the run view's draft", () => {
  it("shows the first text at once, then at most once per interval", async () => {
    const time = manualTime(10_000);
    const recorded = recordingDisplay(time);
    const view = viewOf(recorded, time);
    view.sink({ type: "step_started", runId, step: 1 });
    await vi.waitFor(() => expect(recorded.progress).toHaveLength(1));
    time.advance(5_000);
    view.sink(delta(1, "It"));
    await vi.waitFor(() => expect(recorded.progress.some((shown) => liveText(shown.progress) === "It")).toBe(true));
    const first = recorded.progress.find((shown) => liveText(shown.progress) === "It")!;
    expect(first.at).toBe(15_000);
    for (const piece of [" is", " noon", " in", " Paris."]) view.sink(delta(1, piece));
    await vi.waitFor(() => expect(liveText(recorded.progress.at(-1)!.progress)).toBe("It is noon in Paris."));
    const times = recorded.progress.map((shown) => shown.at);
    for (let index = 2; index < times.length; index++) expect(times[index]! - times[index - 1]!).toBeGreaterThanOrEqual(INTERVAL);
    expect(recorded.drafts.map((draft) => draft.segments[0]?.text)).toEqual([
      "It",
      "It is",
      "It is noon",
      "It is noon in",
      "It is noon in Paris.",
    ]);
  });

  it("keeps the interval for the first text too where text and progress share a message", async () => {
    const time = manualTime(10_000);
    const recorded = recordingDisplay(time, false);
    const view = viewOf(recorded, time);
    view.sink({ type: "step_started", runId, step: 1 });
    await vi.waitFor(() => expect(recorded.progress).toHaveLength(1));
    view.sink(delta(1, "It"));
    await vi.waitFor(() => expect(recorded.progress).toHaveLength(2));
    expect(recorded.progress[1]!.at - recorded.progress[0]!.at).toBe(INTERVAL);
  });

  it("answers with the live text completed, the answer's write an interval after the last draft", async () => {
    const time = manualTime();
    const recorded = recordingDisplay(time);
    const view = viewOf(recorded, time);
    view.sink(delta(1, "It is noon"));
    await vi.waitFor(() => expect(recorded.progress).toHaveLength(1));
    await view.finish(answered("It is noon."));
    expect(recorded.answers[0]!.card.answer).toBe("It is noon.");
    expect(recorded.answers[0]!.at - recorded.progress.at(-1)!.at).toBeGreaterThanOrEqual(INTERVAL);
    expect(liveText(recorded.ended[0]!)).toBe("It is noon");
    expect(recorded.ended[0]!.draft.segments[0]!.sealed).toBe(false);
  });

  it("keeps what was shown when a Stop cut the text, the summary left out", async () => {
    const time = manualTime();
    const recorded = recordingDisplay(time);
    const view = viewOf(recorded, time);
    view.sink(delta(1, "The largest files are a.txt and"));
    const stop: GuardStop = { guard: "stopped", detail: "stop", sentence: "Stopped by alice." };
    await view.finish(answered("A summary of what was found.", stop));
    expect(recorded.answers[0]!.card).toMatchObject({ answer: "The largest files are a.txt and", stop });
  });

  it("streams nothing the model writes once the loop says the run read a channel, and shows the answer whole at the end", async () => {
    const time = manualTime();
    const recorded = recordingDisplay(time);
    const view = viewOf(recorded, time);
    view.sink({ type: "step_started", runId, step: 1 });
    view.sink(delta(1, "Let me read #board."));
    await vi.waitFor(() => expect(recorded.drafts.map((draft) => draft.segments[0]?.text)).toEqual(["Let me read #board."]));
    view.sink({ type: "step_started", runId, step: 2, channelsRead: ["C0BOARD"] });
    for (const piece of ["The board", " says: Initech", " closes on March 3."]) view.sink(delta(2, piece));
    await view.finish(answered("The board says: Initech closes on March 3."));
    expect(recorded.drafts).toHaveLength(1);
    expect(recorded.progress.some((shown) => JSON.stringify(shown.progress.draft).includes("Initech"))).toBe(false);
    expect(JSON.stringify(recorded.ended)).not.toContain("Initech");
    expect(recorded.answers.map((answer) => answer.card.answer)).toEqual(["The board says: Initech closes on March 3."]);
  });

  it("asks whether the channels read may hold the answer, and streams on when they can't", async () => {
    const time = manualTime();
    const recorded = recordingDisplay(time);
    const asked: string[][] = [];
    const view = viewOf(recorded, time, mapStore(), (channels) => {
      asked.push([...channels]);
      return channels.some((channel) => channel !== "C0GENERAL");
    });
    view.sink({ type: "step_started", runId, step: 2, channelsRead: ["C0GENERAL"] });
    view.sink(delta(2, "Bob says the office closes"));
    await vi.waitFor(() => expect(recorded.drafts.map((draft) => draft.segments[0]?.text)).toEqual(["Bob says the office closes"]));
    view.sink({ type: "step_started", runId, step: 3, channelsRead: ["C0GENERAL", "C0BOARD"] });
    view.sink(delta(3, "and the board says: Initech"));
    view.sink({ type: "step_started", runId, step: 4, channelsRead: ["C0GENERAL", "C0BOARD"] });
    await view.finish(answered("Bob says the office closes, and the board says: Initech."));
    expect(asked).toEqual([["C0GENERAL"], ["C0GENERAL", "C0BOARD"]]);
    expect(JSON.stringify([recorded.drafts, recorded.progress, recorded.ended])).not.toContain("Initech");
  });

  it("seals what streamed when the run waits for an approval instead", async () => {
    const time = manualTime();
    const recorded = recordingDisplay(time);
    const view = viewOf(recorded, time);
    view.sink(delta(1, "I will post the summary."));
    const pending = { runId, callId: "c1", tool: "post_message", args: {}, requester: { id: "U1" }, expiresAt: 1 } as never;
    await view.finish({ status: "paused", runId, pending, steps: [], usage: { promptTokens: 0, completionTokens: 0 } });
    expect(recorded.ended[0]!.draft.segments).toEqual([{ step: 1, text: "I will post the summary.", sealed: true }]);
  });

  it("keeps the open messages in the store while they are open, and forgets them once the answer closed them", async () => {
    const time = manualTime();
    const store = mapStore();
    const recorded = recordingDisplay(time);
    const view = viewOf(recorded, time, store);
    recorded.open = [{ channel: "C1", id: "1.1", kind: "text", streaming: true }];
    view.sink(delta(1, "It is"));
    await vi.waitFor(() => expect(store.data.get(`test:unfinished:${runId}`)).toEqual(recorded.open));
    await view.finish(answered("It is noon."));
    expect(store.data.has(`test:unfinished:${runId}`)).toBe(false);
  });

  it("ends what a process that died mid-stream left open before the new view shows anything", async () => {
    const time = manualTime();
    const store = mapStore();
    const left: UnfinishedMessage[] = [{ channel: "C1", id: "1.1", kind: "text", streaming: true }];
    await store.set(`test:unfinished:${runId}`, left);
    const recorded = recordingDisplay(time);
    const view = viewOf(recorded, time, store);
    view.sink({ type: "step_started", runId, step: 1 });
    view.sink(delta(1, "It is noon."));
    await view.finish(answered("It is noon."));
    expect(recorded.settled).toEqual([left]);
    expect(store.data.has(`test:unfinished:${runId}`)).toBe(false);
  });

  it("records where the display's streams may start before its first write, and leaves that out once the answer showed", async () => {
    const time = manualTime();
    const store = mapStore();
    const recorded = recordingDisplay(time);
    const key = `test:unfinished:${runId}`;
    const thread: LeftOpen = { channel: "C1", thread: "1.0" };
    const storedAtWrites: unknown[] = [];
    const display: RunDisplay<string> = {
      ...recorded.display,
      progress: async (progress) => {
        storedAtWrites.push(store.data.get(key));
        await recorded.display.progress(progress);
      },
      unfinished: () => [...recorded.open, thread],
    };
    const view = createRunView(display, viewDeps(time, store));
    view.sink({ type: "step_started", runId, step: 1 });
    view.sink(delta(1, "It is noon."));
    await view.finish(answered("It is noon."));
    expect(storedAtWrites[0]).toEqual([thread]);
    expect(store.data.has(key)).toBe(false);
  });

  it("hands what an earlier version recorded (messages only) and what this one records (stream threads too) to the display", async () => {
    const time = manualTime();
    const store = mapStore();
    const written: LeftOpen[] = [
      { channel: "C1", id: "1.1", kind: "text", streaming: true },
      { channel: "C1", thread: "1.0" },
    ];
    await store.set(`test:unfinished:${runId}`, written);
    const recorded = recordingDisplay(time);
    const view = viewOf(recorded, time, store);
    view.sink({ type: "step_started", runId, step: 1 });
    await view.finish(answered("It is noon."));
    expect(recorded.settled).toEqual([written]);
  });
});
