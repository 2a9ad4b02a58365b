import { describe, expect, it } from "vitest";
import type { PendingApproval } from "../../../src/contracts/types.js";
import {
  APPROVE_ACTION,
  approvalBlocks,
  decodeApprovalValue,
  DENY_ACTION,
  encodeApprovalValue,
  settledBlocks,
  settledFromPending,
} from "../../../src/adapters/slack/approval-message.js";
import { toSlackMrkdwn } from "../../../src/adapters/slack/slack-text.js";
import { codeBlock, escapeSlackText } from "../../../src/adapters/slack/slack-text.js";

const pending = (args: unknown): PendingApproval => ({
  runId: "run_AbC123",
  callId: "call_1",
  tool: "post_message",
  args,
  requester: { id: "U0ALICE" },
  origin: { surface: "slack", conversationKey: "slack:T:C:1.1", requester: { id: "U0ALICE" }, place: {} },
  expiresAt: Date.UTC(2030, 0, 1, 12, 0),
});

describe("toSlackMrkdwn", () => {
  it.each([
    ["**bold** and __also__", "*bold* and *also*"],
    ["~~gone~~", "~gone~"],
    ["see [the docs](https://example.test/a?b=1)", "see <https://example.test/a?b=1|the docs>"],
    ["## Heading ##\ntext", "*Heading*\ntext"],
    ["[x](javascript:alert(1))", "[x](javascript:alert(1))"],
  ])("converts %j", (input, expected) => {
    expect(toSlackMrkdwn(input)).toBe(expected);
  });

  it("leaves code as written but still neutralises crowd mentions everywhere", () => {
    expect(toSlackMrkdwn("`**x**` and\n```\n**y** <!here>\n```")).toBe("`**x**` and\n```\n**y** @\u2060here\n```");
  });
});

describe("escapeSlackText and codeBlock", () => {
  it("escapes markup characters", () => {
    expect(escapeSlackText("a < b && c > <@U1>")).toBe("a &lt; b &amp;&amp; c &gt; &lt;@U1&gt;");
  });

  it("keeps a code block closed whatever the text holds", () => {
    const block = codeBlock("x ``` y");
    expect(block.startsWith("```") && block.endsWith("```")).toBe(true);
    expect(block.slice(3, -3)).not.toContain("```");
  });
});

describe("approval values", () => {
  it("round-trips the run and call ids", () => {
    expect(decodeApprovalValue(encodeApprovalValue({ runId: "run_1", callId: "call_x" }))).toEqual({ runId: "run_1", callId: "call_x" });
  });

  it.each([
    undefined,
    42,
    "",
    "not json",
    "{}",
    '{"r":"a"}',
    '{"r":"","c":"b"}',
    '{"r":1,"c":"b"}',
    JSON.stringify({ r: "a".repeat(600), c: "b" }),
  ])("rejects %j", (value) => {
    expect(decodeApprovalValue(value)).toBeUndefined();
  });
});

const NOBODY = { users: [], roles: [] };

describe("approval blocks", () => {
  it("shows the tool, readable arguments and two buttons carrying the run and call", () => {
    const blocks = approvalBlocks(pending({ channel: "C1", text: "hi <!channel> & co" }), NOBODY);
    const json = JSON.stringify(blocks);
    expect(json).toContain("post_message");
    expect(json).toContain("hi @\u2060channel &amp; co");
    expect(json).toContain("Only <@U0ALICE> can decide");
    const actions = blocks.find((block) => block.type === "actions") as { elements: Array<{ action_id: string; value: string }> };
    expect(actions.elements.map((e) => e.action_id)).toEqual([APPROVE_ACTION, DENY_ACTION]);
    for (const element of actions.elements) expect(decodeApprovalValue(element.value)).toEqual({ runId: "run_AbC123", callId: "call_1" });
  });

  it("mentions approvers when there are others than the requester", () => {
    expect(JSON.stringify(approvalBlocks(pending({}), { users: ["U0BOSS"], roles: [] }))).toContain(
      "Only <@U0ALICE> or <@U0BOSS> can decide",
    );
  });

  it("truncates long arguments", () => {
    const json = JSON.stringify(approvalBlocks(pending({ text: "x".repeat(10_000) }), NOBODY));
    expect(json.length).toBeLessThan(5_000);
    expect(json).toContain("more characters");
  });

  it("keeps every section within Slack's 3,000 characters when escaping lengthens the arguments", () => {
    for (const text of ["&".repeat(10_000), "<>".repeat(5_000), "```".repeat(3_000)]) {
      const sections = approvalBlocks(pending({ text }), NOBODY).filter((block) => block.type === "section") as Array<{
        text: { text: string };
      }>;
      for (const section of sections) expect(section.text.text.length).toBeLessThanOrEqual(3_000);
      expect(sections[1]!.text.text).toContain("more characters");
    }
  });

  it("drops the buttons after a decision and adds what happened", () => {
    const settled = settledBlocks(approvalBlocks(pending({}), NOBODY), "Approved by <@U0ALICE>.");
    expect(settled.some((block) => block.type === "actions")).toBe(false);
    expect(JSON.stringify(settled.at(-1))).toContain("Approved by <@U0ALICE>.");
    expect(JSON.stringify(settledFromPending(pending({}), NOBODY, "Expired"))).not.toContain(APPROVE_ACTION);
  });

  it("survives clicked blocks that are not blocks", () => {
    expect(settledBlocks("garbage", "note")).toEqual([{ type: "context", elements: [{ type: "mrkdwn", text: "note" }] }]);
    expect(settledBlocks([{ no: "type" }], "note")).toHaveLength(1);
  });
});
