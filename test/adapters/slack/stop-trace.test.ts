// The Stop button in the trace message, end to end through Bolt over HTTP: when Slack refuses to
// stream the trace, the run's edited trace message carries the button (and the separate button
// message goes); the requester's click ends the run with "Stopped by <name>." and the button
// leaves the trace message.
import { afterEach, describe, expect, it } from "vitest";
import { call, ScriptedModel } from "../../support/model-scripted.js";
import type { Model } from "../../../src/contracts/types.js";
import { pageBlocks, tracePages } from "../../../src/adapters/slack/message-trace.js";
import { STOP_ACTION } from "../../../src/adapters/slack/slack-working.js";
import { BOT_USER_ID, type FakeSlack } from "../../support/fake-slack.js";
import { blockActionPayload, mentionEvent, postEvent, postInteraction } from "../../support/fake-slack-requests.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";
import { until } from "../../support/until.js";

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const THREAD = "1700008100.000100";

/** Asks for one calculator call, then hangs on every later call until its signal aborts. */
function toolThenHang(): Model & { readonly cancelled: Promise<void> } {
  const first = new ScriptedModel([call("calculator", { expression: "2+2" })]);
  let calls = 0;
  let cancelled: () => void = () => {};
  return {
    name: "tool-then-hang",
    cancelled: new Promise<void>((resolve) => (cancelled = resolve)),
    complete(request, signal) {
      if (calls++ === 0) return first.complete(request, signal);
      return new Promise((_, reject) =>
        signal.addEventListener(
          "abort",
          () => {
            cancelled();
            reject(signal.reason);
          },
          { once: true },
        ),
      );
    },
  };
}

const hasStop = (blocks: unknown) => JSON.stringify(blocks ?? []).includes(STOP_ACTION);
const traceMessage = (fake: FakeSlack) =>
  fake.threadMessages("C0GENERAL", THREAD).find((m) => m.text.startsWith("Working on it…") || m.text.includes("Steps ("));

describe("Slack Stop in the trace message", () => {
  it("moves the button into the trace message when the run posts and edits, and stops the run from there", async () => {
    const model = toolThenHang();
    const h = await startSlackHarness({ model });
    harness = h;
    h.fake.refuseStreaming();
    await postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> add up`, ts: THREAD }));

    await until(() => hasStop(traceMessage(h.fake)?.blocks), "the Stop button in the trace message");
    const trace = traceMessage(h.fake)!;
    expect(trace.text).toContain("calculator");
    await until(
      () => h.fake.threadMessages("C0GENERAL", THREAD).filter((m) => hasStop(m.blocks)).length === 1,
      "the separate Stop message to go",
    );
    const actions = (trace.blocks as Array<{ type: string; elements?: Array<{ value: string }> }>).find((b) => b.type === "actions")!;
    const runId = actions.elements![0]!.value;

    const click = blockActionPayload({
      user: "U0ALICE",
      actionId: STOP_ACTION,
      value: runId,
      channel: "C0GENERAL",
      messageTs: trace.ts,
      threadTs: THREAD,
    });
    expect((await postInteraction(h.eventsUrl, click)).status).toBe(200);
    await h.fake.waitForCall("chat.postMessage", (c) => String(c.args.text).includes("Stopped by u0alice."));
    await model.cancelled;
    await until(() => traceMessage(h.fake)?.text.includes("Steps (") === true, "the final trace");
    expect(h.fake.threadMessages("C0GENERAL", THREAD).some((m) => hasStop(m.blocks))).toBe(false);
  });
});

describe("the trace page's blocks", () => {
  it("carry the page in a markdown block within its 12,000 characters, above the Stop button for the run", () => {
    const [page] = tracePages("Working on it…", "x".repeat(10_000));
    const blocks = pageBlocks(page!, "run-1");
    expect(blocks[0]).toEqual({ type: "markdown", text: page });
    expect(page!.length).toBeLessThanOrEqual(12_000);
    expect(blocks[1]).toMatchObject({ type: "actions", elements: [{ action_id: STOP_ACTION, value: "run-1" }] });
  });

  it("are empty without a run, which is what makes chat.update drop the button", () => {
    expect(pageBlocks("Steps (1):", undefined)).toEqual([]);
  });
});
