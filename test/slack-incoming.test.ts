import { describe, expect, it } from "vitest";
import { classifyMessage } from "../src/adapters/slack/incoming-message.js";
import { toThreadContext } from "../src/adapters/slack/thread-context.js";

const BOT = "U0BOT";
const body = (event: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  team_id: "T1",
  event_id: "Ev1",
  event: { type: "app_mention", user: "U0ALICE", text: `<@${BOT}> hello`, ts: "1700000000.000100", channel: "C1", ...event },
  ...extra,
});

describe("classifyMessage", () => {
  it("turns a channel mention into a question keyed by its thread", () => {
    const result = classifyMessage("mention", body({}), BOT);
    expect(result).toMatchObject({
      kind: "ask",
      message: {
        dedupeKey: "Ev1",
        text: "hello",
        conversationKey: "slack:T1:C1:1700000000.000100",
        place: { team: "T1", channel: "C1", traceThreadTs: "1700000000.000100", replyThreadTs: "1700000000.000100", requester: "U0ALICE" },
      },
    });
  });

  it("keys a mention inside a thread by the thread and remembers it is inside one", () => {
    const result = classifyMessage("mention", body({ ts: "1700000009.000100", thread_ts: "1700000000.000100" }), BOT);
    expect(result).toMatchObject({ kind: "ask", message: { threadTs: "1700000000.000100", conversationKey: "slack:T1:C1:1700000000.000100" } });
  });

  it("keys a top-level DM by its channel and replies at the top level", () => {
    const result = classifyMessage("direct", body({ type: "message", channel_type: "im", channel: "D1", text: "hi" }), BOT);
    expect(result).toMatchObject({ kind: "ask", message: { conversationKey: "slack:T1:D1", place: { traceThreadTs: "1700000000.000100" } } });
    expect(result.kind === "ask" && result.message.place.replyThreadTs).toBeUndefined();
  });

  it("keys a Messages tab thread by its thread_ts", () => {
    const result = classifyMessage("assistant", body({ type: "message", channel_type: "im", channel: "D1", ts: "1700000005.000100", thread_ts: "1700000001.000100" }), BOT);
    expect(result).toMatchObject({ kind: "ask", message: { conversationKey: "slack:T1:D1:1700000001.000100" } });
  });

  it.each([
    ["memory", "memory"],
    ["Memory.", "memory"],
    ["forget", "forget"],
    ["FORGET!", "forget"],
    ["", "empty"],
    ["forget about it", "ask"],
  ])("reads %j as %s", (text, kind) => {
    expect(classifyMessage("mention", body({ text: `<@${BOT}> ${text}` }), BOT).kind).toBe(kind);
  });

  it("falls back to channel and ts when the event id is missing, and to Bolt's team", () => {
    const result = classifyMessage("mention", { event: body({}).event }, BOT, "T9");
    expect(result).toMatchObject({ kind: "ask", message: { dedupeKey: "C1:1700000000.000100", place: { team: "T9" } } });
  });

  it.each([
    ["a bot", { bot_id: "B1" }],
    ["a bot_message", { subtype: "bot_message" }],
    ["itself", { user: BOT }],
    ["an edit", { subtype: "message_changed" }],
    ["a deletion", { subtype: "message_deleted" }],
    ["no author", { user: undefined }],
  ])("ignores %s", (_, fields) => {
    expect(classifyMessage("mention", body(fields), BOT).kind).toBe("ignore");
  });

  it("accepts a file share from a person", () => {
    expect(classifyMessage("direct", body({ type: "message", channel_type: "im", subtype: "file_share", text: "see file" }), BOT).kind).toBe("ask");
  });

  it("ignores a channel message that reached the DM handler", () => {
    expect(classifyMessage("direct", body({ type: "message", channel_type: "channel" }), BOT).kind).toBe("ignore");
  });

  it.each([
    ["not an object", "nope"],
    ["no event", { team_id: "T1" }],
    ["a bad ts", body({ ts: "yesterday" })],
    ["no channel", body({ channel: "" })],
    ["a number as text", body({ text: 42 })],
    ["no team anywhere", { event: body({}).event }],
  ])("ignores a malformed event: %s", (_, raw) => {
    expect(classifyMessage("mention", raw, BOT).kind).toBe("ignore");
  });
});

describe("toThreadContext", () => {
  const message = (ts: number, user: string, text: string, extra: Record<string, unknown> = {}) => ({ ts: `${ts}.000100`, user, text, ...extra });
  const request = { channel: "C1", threadTs: "1.000100", beforeTs: "10.000100", botUserId: BOT };

  it("keeps people's messages before the question, oldest first, without bots or earlier questions to the bot", () => {
    const context = toThreadContext(
      [
        message(1, "U1", "root"),
        message(2, BOT, "bot said"),
        message(3, "U2", "other bot", { bot_id: "B2" }),
        message(4, "U3", "reply"),
        message(5, "U3", `<@${BOT}> an earlier question`),
        message(10, "U1", "the question"),
        message(11, "U4", "later"),
      ],
      request,
    );
    expect(context).toEqual([
      { role: "user", content: "<@U1>: root" },
      { role: "user", content: "<@U3>: reply" },
    ]);
  });

  it("keeps the newest messages when the token budget runs out", () => {
    const raw = Array.from({ length: 9 }, (_, i) => message(i + 1, "U1", `message number ${i + 1} ${"word ".repeat(30)}`));
    const context = toThreadContext(raw, { ...request, maxTokens: 100 });
    expect(context.length).toBeGreaterThan(0);
    expect(context.length).toBeLessThan(9);
    expect(context.at(-1)?.content).toContain("message number 9");
  });

  it("skips entries that are not messages", () => {
    expect(toThreadContext([null, 42, { text: "no ts" }, message(2, "U1", "ok")], request)).toEqual([{ role: "user", content: "<@U1>: ok" }]);
  });
});
