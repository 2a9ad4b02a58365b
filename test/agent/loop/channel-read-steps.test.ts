// The loop tells the view when what the model writes may quote a channel the run read: every step
// after the read names the channels read, also after a pause for an approval and a restart that
// reads the run back from the store (the view of a resumed run saw no read), and a run that read no
// channel names none.
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/contracts/types.js";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";
import { aliceDecides, answerOf, closeNow, harness, pendingOf, sqliteUrl, useApprovalStores } from "../../support/approval-harness.js";
import { originFor } from "../../support/service-harness.js";
import { postTool, readChannelTool } from "../../support/steering-tools.js";

useApprovalStores();

const stepsSaying = (events: readonly AgentEvent[]) =>
  events.flatMap((event) => (event.type === "step_started" ? [{ step: event.step, channelsRead: event.channelsRead ?? [] }] : []));

describe("a step after a read of a channel", () => {
  it("names the channel, in the run and in its resume after a restart", async () => {
    const storeUrl = sqliteUrl();
    const post = postTool();
    const tools = [readChannelTool("bob: the board meets on Friday"), post.tool];
    const before: AgentEvent[] = [];
    const first = await harness(
      new ScriptedModel([call("read_channel", { channel: "C0BOARD" }), call("post_message", { channel: "C0GENERAL", text: "hello" })]),
      { tools, storeUrl },
    );
    const pending = pendingOf(
      await first.service.ask({ origin: originFor(), text: "what's on the board?" }, (event) => before.push(event)),
    );
    expect(stepsSaying(before)).toEqual([
      { step: 1, channelsRead: [] },
      { step: 2, channelsRead: ["C0BOARD"] },
    ]);
    await closeNow(first);

    const after: AgentEvent[] = [];
    const second = await harness(new ScriptedModel([say("The board meets on Friday.")]), { tools, storeUrl });
    expect(answerOf(await aliceDecides(second.service, pending, "approve", (event) => after.push(event)))).toBe(
      "The board meets on Friday.",
    );
    expect(stepsSaying(after)).toEqual([{ step: 3, channelsRead: ["C0BOARD"] }]);
  });

  it("names none in a run that read no channel", async () => {
    const post = postTool();
    const events: AgentEvent[] = [];
    const { service, sink } = await harness(
      new ScriptedModel([call("post_message", { channel: "C0GENERAL", text: "hello" }), say("Posted.")]),
      { tools: [post.tool] },
    );
    const pending = pendingOf(await service.ask({ origin: originFor(), text: "post hello" }, (event) => events.push(event)));
    await aliceDecides(service, pending, "approve", (event) => {
      events.push(event);
      sink(event);
    });
    expect(stepsSaying(events).map((step) => step.channelsRead)).toEqual([[], []]);
  });
});
