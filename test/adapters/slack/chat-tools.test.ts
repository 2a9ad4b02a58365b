// The Slack chat tools through the real Web API client against the fake Slack.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webApi } from "@slack/bolt";
import type { Tool, ToolContext } from "../../../src/contracts/types.js";
import { READ_LIMIT_DEFAULT, READ_LIMIT_MAX } from "../../../src/adapters/core/chat-tools.js";
import { createSlackTools } from "../../../src/adapters/slack/chat-tools.js";
import { BOT_USER_ID, startFakeSlack, type FakeSlack } from "../../support/fake-slack.js";
import { slackAsked } from "../../support/slack-origins.js";

let fake: FakeSlack;
let tools: Record<string, Tool>;
const context: ToolContext = { signal: new AbortController().signal, runId: "run_1", origin: slackAsked("U0ALICE", "C0HOME") };

beforeAll(async () => {
  fake = await startFakeSlack();
  const client = new webApi.WebClient("xoxb-test", { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
  tools = Object.fromEntries(
    createSlackTools({ of: () => client, writerOf: () => client, tokenOf: async () => "xoxb-test" }).map((tool) => [tool.name, tool]),
  );
  for (let i = 1; i <= 60; i++)
    fake.addMessage({ channel: "C0BUSY", ts: `${1_700_000_000 + i}.000100`, user: "U0BOB", text: `message ${i}` });
  fake.addMessage({ channel: "C0THREAD", ts: "1700000100.000100", user: "U0BOB", text: "root" });
  fake.addMessage({ channel: "C0THREAD", ts: "1700000101.000100", thread_ts: "1700000100.000100", user: "U0CAROL", text: "reply" });
  fake.leaveChannel("C0SECRET");
});
afterAll(() => fake.close());

const run = async (name: string, args: unknown) => tools[name]!.execute(tools[name]!.schema.parse(args), context);

describe("Slack chat tools", () => {
  it("are exactly read_channel, read_thread and post_message, and only post_message writes", () => {
    expect(Object.values(tools).map((tool) => [tool.name, tool.effect])).toEqual([
      ["read_channel", "read"],
      ["read_thread", "read"],
      ["post_message", "write"],
    ]);
  });

  it("read_channel returns recent messages, oldest first, bounded by a default limit", async () => {
    const text = String(await run("read_channel", { channel: "C0BUSY" }));
    const lines = text.split("\n");
    expect(lines).toHaveLength(READ_LIMIT_DEFAULT);
    expect(lines[0]).toContain("message 41");
    expect(lines.at(-1)).toContain("<@U0BOB>: message 60");
    expect(fake.callsTo("conversations.history").at(-1)?.args.limit).toBe(String(READ_LIMIT_DEFAULT));
  });

  it.each([
    { channel: "C0BUSY", limit: 0 },
    { channel: "C0BUSY", limit: READ_LIMIT_MAX + 1 },
    { channel: "C0BUSY", limit: 2.5 },
    { channel: "C0BUSY", limit: "ten" },
    { channel: "#general" },
    { channel: "" },
    {},
  ])("read_channel rejects bad arguments %j", (args) => {
    expect(tools.read_channel!.schema.safeParse(args).success).toBe(false);
  });

  it("read_channel tells the model to get the bot invited when it is not a member", async () => {
    await expect(run("read_channel", { channel: "C0SECRET" })).rejects.toThrow(/not a member of C0SECRET/);
  });

  const from = (channel: string): ToolContext => ({ ...context, origin: slackAsked("U0ALICE", channel) });
  const readsOf = (channel: string) =>
    [...fake.callsTo("conversations.history"), ...fake.callsTo("conversations.replies")].filter((c) => c.args.channel === channel);

  it("reads a direct message only from the conversation the request came from", async () => {
    fake.setMembers("D0BOB", [BOT_USER_ID, "U0BOB"]);
    fake.addMessage({ channel: "D0BOB", ts: "1700000200.000100", user: "U0BOB", text: "my private question" });
    await expect(run("read_channel", { channel: "D0BOB" })).rejects.toThrow(
      "read_channel only works where <@U0ALICE> may read; they are not a member of D0BOB",
    );
    await expect(run("read_thread", { channel: "D0BOB", thread_ts: "1700000200.000100" })).rejects.toThrow(
      "read_thread only works where <@U0ALICE> may read",
    );
    expect(readsOf("D0BOB")).toHaveLength(0);
    expect(String(await tools.read_channel!.execute(tools.read_channel!.schema.parse({ channel: "D0BOB" }), from("D0BOB")))).toContain(
      "my private question",
    );
  });

  it.each([
    ["a private channel", "C0PRIVATE", "private" as const],
    ["a group DM", "G0GROUP", "mpim" as const],
  ])("refuses to read %s the bot is in for a request from elsewhere by someone who is not in it", async (_, channel, kind) => {
    fake.setChannelKind(channel, kind);
    fake.setMembers(channel, [BOT_USER_ID, "U0BOB"]);
    fake.addMessage({ channel, ts: "1700000300.000100", user: "U0BOB", text: "not for everyone" });
    await expect(run("read_channel", { channel })).rejects.toThrow(/^read_channel only works where <@U0ALICE> may read/);
    await expect(run("read_thread", { channel, thread_ts: "1700000300.000100" })).rejects.toThrow(
      /^read_thread only works where <@U0ALICE> may read/,
    );
    expect(readsOf(channel)).toHaveLength(0);
  });

  it("reads a private channel for a member of it, asked from elsewhere", async () => {
    fake.setChannelKind("C0CLUB", "private");
    fake.setMembers("C0CLUB", [BOT_USER_ID, "U0ALICE"]);
    fake.addMessage({ channel: "C0CLUB", ts: "1700000350.000100", user: "U0BOB", text: "members only" });
    expect(String(await run("read_channel", { channel: "C0CLUB" }))).toContain("members only");
  });

  it("reads a private channel when the request came from it", async () => {
    fake.setChannelKind("C0TEAMROOM", "private");
    fake.addMessage({ channel: "C0TEAMROOM", ts: "1700000400.000100", user: "U0BOB", text: "team only" });
    const own = from("C0TEAMROOM");
    expect(String(await tools.read_channel!.execute(tools.read_channel!.schema.parse({ channel: "C0TEAMROOM" }), own))).toContain(
      "team only",
    );
    const thread = await tools.read_thread!.execute(
      tools.read_thread!.schema.parse({ channel: "C0TEAMROOM", thread_ts: "1700000400.000100" }),
      own,
    );
    expect(String(thread)).toContain("team only");
  });

  it("read_thread returns the root and the replies", async () => {
    const text = String(await run("read_thread", { channel: "C0THREAD", thread_ts: "1700000100.000100" }));
    expect(text.split("\n").map((line) => line.replace(/^\[[^\]]+\] /, ""))).toEqual(["<@U0BOB>: root", "<@U0CAROL>: reply"]);
  });

  it.each([{ thread_ts: "soon" }, { thread_ts: 1700000100 }, { channel: "general" }])("read_thread rejects %j", (args) => {
    expect(tools.read_thread!.schema.safeParse({ channel: "C0THREAD", thread_ts: "1700000100.000100", ...args }).success).toBe(false);
  });

  it("read_thread explains a thread that does not exist", async () => {
    await expect(run("read_thread", { channel: "C0THREAD", thread_ts: "1.000100" })).rejects.toThrow(/No thread with that thread_ts/);
  });

  it("post_message posts the text with crowd mentions neutralised", async () => {
    const result = await run("post_message", { channel: "C0BUSY", text: "<!everyone> lunch is here" });
    expect(String(result)).toMatch(/^Posted to C0BUSY/);
    expect(fake.callsTo("chat.postMessage").at(-1)?.args).toMatchObject({ channel: "C0BUSY", text: "@\u2060everyone lunch is here" });
  });

  it.each([
    ["empty text", { text: "" }],
    ["blank text", { text: "   " }],
    ["text over the limit", { text: "x".repeat(4_001) }],
    ["a channel with a space", { channel: "C1 " }],
  ])("post_message rejects %s", (_, args) => {
    expect(tools.post_message!.schema.safeParse({ channel: "C0BUSY", text: "hi", ...args }).success).toBe(false);
  });

  it("post_message explains a channel the bot is not in", async () => {
    await expect(run("post_message", { channel: "C0SECRET", text: "hi" })).rejects.toThrow(/invite me/);
  });
});
