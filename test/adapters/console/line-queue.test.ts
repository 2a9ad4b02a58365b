// The console's input buffer: lines keep their order, typed-ahead lines never answer a question.
import { describe, expect, it } from "vitest";
import { createLineQueue } from "../../../src/adapters/console/line-queue.js";

describe("line queue", () => {
  it("keeps lines typed before they were asked for, in order, marked as early", async () => {
    const lines = createLineQueue();
    lines.push("one");
    lines.push("two");
    expect(await lines.next()).toEqual({ text: "one", early: true });
    expect(await lines.next()).toEqual({ text: "two", early: true });
    const waiting = lines.next();
    lines.push("three");
    expect(await waiting).toEqual({ text: "three", early: false });
  });

  it("gives the queued lines out after the input ended, then undefined", async () => {
    const lines = createLineQueue();
    lines.push("last");
    lines.end();
    lines.push("after the end");
    expect(await lines.next()).toEqual({ text: "last", early: true });
    expect(await lines.next()).toBeUndefined();
    const waiting = createLineQueue();
    const pending = waiting.next();
    waiting.end();
    expect(await pending).toBeUndefined();
  });

  it("answers nextFresh only with a line typed after it was called; earlier lines stay queued", async () => {
    const lines = createLineQueue();
    lines.push("typed ahead");
    const answer = lines.nextFresh();
    lines.push("y");
    expect(await answer).toBe("y");
    expect(await lines.next()).toEqual({ text: "typed ahead", early: true });
  });

  it("nextFresh gives undefined when aborted, and the next line then goes to the queue", async () => {
    const lines = createLineQueue();
    const controller = new AbortController();
    const answer = lines.nextFresh(controller.signal);
    controller.abort();
    expect(await answer).toBeUndefined();
    lines.push("later");
    expect(await lines.next()).toEqual({ text: "later", early: true });
    expect(await lines.nextFresh(controller.signal)).toBeUndefined();
  });

  it("close drops what is queued and releases every waiting read", async () => {
    const lines = createLineQueue();
    lines.push("dropped");
    const fresh = lines.nextFresh();
    lines.close();
    expect(await fresh).toBeUndefined();
    expect(await lines.next()).toBeUndefined();
    expect(await lines.nextFresh()).toBeUndefined();
  });
});
