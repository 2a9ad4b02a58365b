import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { webApi } from "@slack/bolt";
import { commandIn } from "../../../src/adapters/core/commands.js";
import { classifyMessage } from "../../../src/adapters/slack/incoming-message.js";
import {
  slackContextLoader,
  THREAD_MAX_PAGES,
  THREAD_PAGE_SIZE,
  threadSource,
  toThreadContext,
} from "../../../src/adapters/slack/thread-context.js";
import { silentLogger } from "../../../src/logger.js";
import { TokenCounter } from "../../../src/tokens/token-counter.js";
import { startFakeSlack, type FakeSlack } from "../../support/fake-slack.js";

const BOT = "U0BOT";
const counter = TokenCounter.forModel("gpt-4o-mini");
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
      kind: "message",
      message: {
        receipt: "C1:1700000000.000100",
        text: "hello",
        at: {
          origin: {
            conversationKey: "slack:T1:C1:1700000000.000100",
            requester: { id: "U0ALICE" },
            place: { team: "T1", channel: "C1", thread_ts: "1700000000.000100", reply_thread_ts: "1700000000.000100" },
            scope: { channel: "C1", dm: false, workspace: "T1" },
          },
        },
      },
    });
    expect(result.kind === "message" && result.message.contextSource).toBeFalsy();
  });

  it("keys a mention inside a thread by the thread, and reads the thread before it for context", () => {
    const result = classifyMessage("mention", body({ ts: "1700000009.000100", thread_ts: "1700000000.000100" }), BOT);
    expect(result).toMatchObject({
      kind: "message",
      message: {
        at: { origin: { conversationKey: "slack:T1:C1:1700000000.000100" } },
        contextSource: { channel: "C1", thread_ts: "1700000000.000100", before_ts: "1700000009.000100" },
      },
    });
  });

  it("answers a top-level DM in a thread under it, keyed like a follow-up in that thread", () => {
    const result = classifyMessage("direct", body({ type: "message", channel_type: "im", channel: "D1", text: "hi" }), BOT);
    expect(result).toMatchObject({
      kind: "message",
      message: {
        at: {
          origin: {
            conversationKey: "slack:T1:D1:1700000000.000100",
            place: { thread_ts: "1700000000.000100", reply_thread_ts: "1700000000.000100" },
            scope: { dm: true },
          },
        },
      },
    });
  });

  it("keys a DM thread (the Messages tab) by its thread_ts", () => {
    const result = classifyMessage(
      "direct",
      body({ type: "message", channel_type: "im", channel: "D1", ts: "1700000005.000100", thread_ts: "1700000001.000100" }),
      BOT,
    );
    expect(result).toMatchObject({ kind: "message", message: { at: { origin: { conversationKey: "slack:T1:D1:1700000001.000100" } } } });
    expect(result.kind === "message" && result.message.contextSource).toBeFalsy();
  });

  it.each([
    ["memory", "memory"],
    ["Memory.", "memory"],
    ["forget", "forget"],
    ["FORGET!", "forget"],
    ["", undefined],
    ["forget about it", undefined],
  ])("reads %j after the mention as the command %s", (text, command) => {
    const result = classifyMessage("mention", body({ text: `<@${BOT}> ${text}` }), BOT);
    if (result.kind !== "message") throw new Error(`not a message: ${JSON.stringify(result)}`);
    expect(commandIn(result.message.text)?.command.name).toBe(command);
  });

  it("keys a message by channel and ts, whatever the event id, and falls back to Bolt's team", () => {
    const result = classifyMessage("mention", { event: body({}).event, event_id: "EvOther" }, BOT, "T9");
    expect(result).toMatchObject({
      kind: "message",
      message: { receipt: "C1:1700000000.000100", at: { origin: { place: { team: "T9" } } } },
    });
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
    expect(
      classifyMessage("direct", body({ type: "message", channel_type: "im", subtype: "file_share", text: "see file" }), BOT).kind,
    ).toBe("message");
  });

  it("leaves a mention in a DM to the DM event Slack sends for the same message", () => {
    expect(classifyMessage("mention", body({ channel: "D1" }), BOT)).toMatchObject({ kind: "ignore" });
  });

  it("addresses a Slack Connect requester's stream to their own workspace", () => {
    const result = classifyMessage("mention", body({ team: "T0GUEST", user_team: "T0GUEST" }), BOT);
    expect(result).toMatchObject({ message: { at: { origin: { place: { team: "T1", requester_team: "T0GUEST" } } } } });
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
  const message = (ts: number, user: string, text: string, extra: Record<string, unknown> = {}) => ({
    ts: `${ts}.000100`,
    user,
    text,
    ...extra,
  });
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
      counter,
    );
    expect(context).toEqual([
      { source: { kind: "person", author: { id: "U1" }, channel: "<#C1>" }, text: "root" },
      { source: { kind: "person", author: { id: "U3" }, channel: "<#C1>" }, text: "reply" },
    ]);
  });

  it("marks the requester's own earlier messages as theirs, everyone else's as another person's", () => {
    const context = toThreadContext(
      [message(1, "U1", "root"), message(2, "U0ALICE", "my earlier note"), message(3, "U3", "reply")],
      { ...request, requester: "U0ALICE" },
      counter,
    );
    expect(context.map((line) => line.source)).toEqual([
      { kind: "person", author: { id: "U1" }, channel: "<#C1>" },
      { kind: "requester", person: { id: "U0ALICE" } },
      { kind: "person", author: { id: "U3" }, channel: "<#C1>" },
    ]);
  });

  it("keeps the newest messages when the token budget runs out", () => {
    const raw = Array.from({ length: 9 }, (_, i) => message(i + 1, "U1", `message number ${i + 1} ${"word ".repeat(30)}`));
    const context = toThreadContext(raw, { ...request, maxTokens: 100 }, counter);
    expect(context.length).toBeGreaterThan(0);
    expect(context.length).toBeLessThan(9);
    expect(context.at(-1)?.text).toContain("message number 9");
  });

  it("cuts a long message before counting it: the work follows the budget, not the message's length", () => {
    const long = Array.from({ length: 40_000 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7_919 + 13) % 20_000))).join("");
    const encodeInto = vi.spyOn(TextEncoder.prototype, "encodeInto");
    try {
      const context = toThreadContext([message(1, "U1", long), message(2, "U2", "short reply")], { ...request, maxTokens: 2_000 }, counter);
      expect(context).toEqual([{ source: { kind: "person", author: { id: "U2" }, channel: "<#C1>" }, text: "short reply" }]);
      const encodedChars = encodeInto.mock.calls.reduce((sum, [unit]) => sum + unit.length, 0);
      expect(encodedChars).toBeLessThanOrEqual(8_000);
    } finally {
      encodeInto.mockRestore();
    }
  });

  it("skips entries that are not messages", () => {
    expect(toThreadContext([null, 42, { text: "no ts" }, message(2, "U1", "ok")], request, counter)).toEqual([
      { source: { kind: "person", author: { id: "U1" }, channel: "<#C1>" }, text: "ok" },
    ]);
  });
});

describe("slackContextLoader", () => {
  let fake: FakeSlack;
  let client: webApi.WebClient;
  beforeAll(async () => {
    fake = await startFakeSlack();
    client = new webApi.WebClient("xoxb-test", { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
  });
  afterAll(() => fake.close());
  const origin = { surface: "slack", conversationKey: "slack:T1:C1:1.000100", requester: { id: "U0ALICE" }, place: {} } as const;
  const load = (source: Readonly<Record<string, string>>) =>
    slackContextLoader(
      () => client,
      async () => BOT,
      counter,
      silentLogger,
    )(source, origin);

  /** A thread whose root is at `root` seconds, with `replies` replies one second apart, then the question, then a later reply. */
  function thread(channel: string, root: number, replies: number) {
    const ts = (seconds: number) => `${seconds}.000100`;
    fake.addMessage({ channel, ts: ts(root), user: "U0BOB", text: "the root" });
    for (let i = 1; i <= replies; i++)
      fake.addMessage({ channel, ts: ts(root + i), thread_ts: ts(root), user: "U0BOB", text: `reply ${i}` });
    fake.addMessage({ channel, ts: ts(root + replies + 1), thread_ts: ts(root), user: "U0ALICE", text: `<@${BOT}> what now?` });
    fake.addMessage({ channel, ts: ts(root + replies + 2), thread_ts: ts(root), user: "U0CAROL", text: "after the question" });
    return threadSource(channel, ts(root), ts(root + replies + 1));
  }

  it("reads a long thread page by page, so the messages just before the question are kept", async () => {
    const request = thread("C0LONG", 1_800_000_000, 2 * THREAD_PAGE_SIZE + 50);
    const context = await load(request);
    expect(context.at(-1)).toEqual({
      source: { kind: "person", author: { id: "U0BOB" }, channel: "<#C0LONG>" },
      text: `reply ${2 * THREAD_PAGE_SIZE + 50}`,
    });
    expect(JSON.stringify(context)).not.toContain("after the question");
    const pages = fake.callsTo("conversations.replies").filter((c) => c.args.channel === "C0LONG");
    expect(pages).toHaveLength(3);
    expect(pages[0]!.args.cursor).toBeUndefined();
    expect(pages[1]!.args.cursor).toEqual(expect.any(String));
  });

  it("stops after a bounded number of pages", async () => {
    const request = thread("C0ENDLESS", 1_810_000_000, THREAD_MAX_PAGES * THREAD_PAGE_SIZE + 10);
    const context = await load(request);
    expect(context.length).toBeGreaterThan(0);
    expect(fake.callsTo("conversations.replies").filter((c) => c.args.channel === "C0ENDLESS")).toHaveLength(THREAD_MAX_PAGES);
  });

  it("gives no context, and does not throw, when the thread cannot be read", async () => {
    fake.fail("conversations.replies", { error: "ratelimited" });
    expect(await load(threadSource("C0GONE", "1.000100", "2.000100"))).toEqual([]);
  });
});
