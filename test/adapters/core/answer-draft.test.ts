// What the core shows of the text a model streams: one segment per step, sealed when the step
// calls tools (the model saying what it is about to do: shown, never part of the answer), voided
// by a restart; and what the answer's message ends up saying, Stop and guards included.
import { describe, expect, it } from "vitest";
import { answerShown, draftAfter, EMPTY_DRAFT, liveSegment, sealedDraft, type Draft } from "../../../src/adapters/core/answer-draft.js";
import type { AgentEvent, GuardStop } from "../../../src/contracts/types.js";
import * as events from "../../support/stream-events.js";

const runId = "run-1";
const delta = (step: number, text: string) => events.delta(runId, step, text);
const call = { id: "c0", name: "current_time", arguments: "{}" };
const replied = (step: number, text: string | null, tools: number) => events.replied(runId, step, text, tools > 0 ? [call] : []);
const play = (played: readonly AgentEvent[], from: Draft = EMPTY_DRAFT) => played.reduce(draftAfter, from);
const answered = (answer: string, stop?: GuardStop) => events.answered(runId, answer, stop);
const STOPPED: GuardStop = { guard: "stopped", detail: "stop", sentence: "Stopped by alice." };

describe("the draft of what the model writes", () => {
  it("grows one live segment with its step's pieces, without the whitespace it started with", () => {
    const draft = play([delta(1, "\n  It"), delta(1, " is"), delta(1, " noon.")]);
    expect(draft.segments).toEqual([{ step: 1, text: "It is noon.", sealed: false }]);
    expect(liveSegment(draft)?.text).toBe("It is noon.");
  });

  it("seals a step's text once the step turns out to call tools, keeping the reply's own words", () => {
    const draft = play([delta(1, "Let me check"), replied(1, "Let me check the time.", 1), delta(2, "It is noon.")]);
    expect(draft.segments).toEqual([
      { step: 1, text: "Let me check the time.", sealed: true },
      { step: 2, text: "It is noon.", sealed: false },
    ]);
  });

  it("leaves the answer's segment live when its step calls no tool", () => {
    const draft = play([delta(1, "It is noon."), replied(1, "It is noon.", 0)]);
    expect(liveSegment(draft)?.text).toBe("It is noon.");
  });

  it("voids the text of a try that failed after streaming, then takes the next try's", () => {
    const draft = play([delta(1, "It is mid"), { type: "text_restart", runId, step: 1 }]);
    expect(draft.segments).toEqual([{ step: 1, text: "", sealed: false }]);
    expect(liveSegment(draft)).toBeUndefined();
    expect(play([delta(1, "It is noon.")], draft).segments).toEqual([{ step: 1, text: "It is noon.", sealed: false }]);
  });

  it("seals what an earlier step left live when a later step writes (what was shown stays)", () => {
    const draft = play([delta(1, "Half an"), delta(2, "Summary.")]);
    expect(draft.segments.map((segment) => segment.sealed)).toEqual([true, false]);
  });

  it("ignores events that bring no text, returning the same draft", () => {
    const draft = play([delta(1, "Hi")]);
    expect(draftAfter(draft, { type: "step_started", runId, step: 2 })).toBe(draft);
    expect(draftAfter(draft, delta(2, "   "))).toBe(draft);
    expect(draftAfter(EMPTY_DRAFT, { type: "text_restart", runId, step: 1 })).toBe(EMPTY_DRAFT);
  });

  it("seals everything for an outcome that is not an answer", () => {
    expect(liveSegment(sealedDraft(play([delta(1, "I will write the file.")])))).toBeUndefined();
  });
});

describe("what the answer's message ends up saying", () => {
  it("is the answer, which continues the live text that streamed", () => {
    const draft = play([delta(1, "It is noon.\n")]);
    expect(answerShown(draft, answered("It is noon."))).toBe("It is noon.");
  });

  it("is the answer when nothing streamed", () => {
    expect(answerShown(EMPTY_DRAFT, answered("It is noon."))).toBe("It is noon.");
  });

  it("is the answer, replacing the live text, when the two differ", () => {
    expect(answerShown(play([delta(1, "It is mid")]), answered("It is noon."))).toBe("It is noon.");
  });

  it("keeps what was shown when a Stop or a guard cut the text mid-way, and leaves the summary out", () => {
    const draft = play([delta(1, "The three largest files are a.txt, b")]);
    expect(answerShown(draft, answered("Summary of what I found before the stop.", STOPPED))).toBe("The three largest files are a.txt, b");
  });

  it("is the summary when it streamed after the cut, the cut text staying shown above it", () => {
    const draft = play([delta(1, "The three largest"), delta(2, "I was stopped.")]);
    expect(draft.segments[0]).toMatchObject({ text: "The three largest", sealed: true });
    expect(answerShown(draft, answered("I was stopped.", STOPPED))).toBe("I was stopped.");
  });
});
