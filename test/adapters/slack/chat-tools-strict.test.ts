// The Slack chat tools where Slack's answers depend on scopes, membership and long threads:
// each case here failed before the tools were fixed (a private channel without groups:read
// read as a refusal, a thread read from its start, a requester's write to a channel they are
// not in, a write repeated by the client's retries).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { webApi } from "@slack/bolt";
import type { Tool, ToolContext } from "../../../src/contracts/types.js";
import { createSlackTools } from "../../../src/adapters/slack/chat-tools.js";
import { BOT_USER_ID, startFakeSlack, type FakeSlack } from "../../support/fake-slack.js";
import { slackAsked } from "../../support/slack-origins.js";

let fake: FakeSlack;
let tools: Record<string, Tool>;
const context: ToolContext = { signal: new AbortController().signal, runId: "run_1", origin: slackAsked("U0ALICE", "C0HOME") };
const askedBy = (origin: ToolContext["origin"]): ToolContext => ({ ...context, origin });

beforeEach(async () => {
  fake = await startFakeSlack();
  const reads = new webApi.WebClient("xoxb-test", {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 2, minTimeout: 10, maxTimeout: 20 },
  });
  const writes = new webApi.WebClient("xoxb-test", { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true });
  tools = Object.fromEntries(
    createSlackTools({ of: () => reads, writerOf: () => writes, tokenOf: async () => "xoxb-test" }).map((tool) => [tool.name, tool]),
  );
});
afterEach(() => fake.close());

const run = async (name: string, args: unknown, asked: ToolContext = context) =>
  tools[name]!.execute(tools[name]!.schema.parse(args), asked);

describe("Slack chat tools against a strict Slack", () => {
  it("refuses a private channel when Slack withholds its details for lack of groups:read", async () => {
    fake.setChannelKind("C0HIDDEN", "private");
    fake.withoutScope("groups:read");
    fake.addMessage({ channel: "C0HIDDEN", ts: "1700000500.000100", user: "U0BOB", text: "hidden" });
    await expect(run("read_channel", { channel: "C0HIDDEN" })).rejects.toThrow(
      "read_channel can't tell whether <@U0ALICE> may read C0HIDDEN (Slack withholds it from this app)",
    );
    expect(fake.callsTo("conversations.history")).toHaveLength(0);
  });

  it.each([
    ["a guest (is_restricted)", "U0GUEST", { team_id: "T0TEAM", is_restricted: true }],
    ["a single-channel guest (is_ultra_restricted)", "U0SOLO", { team_id: "T0TEAM", is_ultra_restricted: true }],
    ["a Slack Connect user of another workspace", "U0PARTNER", { team_id: "T0OTHER" }],
  ])("lets %s read only the conversations they are in, not every public channel", async (_, user, info) => {
    fake.setUser(user, info);
    fake.addMessage({ channel: "C0PUBLIC", ts: "1700000600.000100", user: "U0BOB", text: "for the host workspace" });
    fake.setMembers("C0PUBLIC", [BOT_USER_ID, "U0BOB"]);
    const asked = askedBy(slackAsked(user, "C0HOME"));
    await expect(run("read_channel", { channel: "C0PUBLIC" }, asked)).rejects.toThrow(`they are not a member of C0PUBLIC`);
    await expect(run("read_thread", { channel: "C0PUBLIC", thread_ts: "1700000600.000100" }, asked)).rejects.toThrow(
      "not a member of C0PUBLIC",
    );
    expect(fake.callsTo("conversations.history")).toHaveLength(0);
    fake.setMembers("C0PUBLIC", [BOT_USER_ID, "U0BOB", user]);
    expect(String(await run("read_channel", { channel: "C0PUBLIC" }, asked))).toContain("for the host workspace");
  });

  it("reads nothing outside the conversation when it can't tell who is asking (no users:read)", async () => {
    fake.withoutScope("users:read");
    fake.addMessage({ channel: "C0PUBLIC", ts: "1700000700.000100", user: "U0BOB", text: "public" });
    await expect(run("read_channel", { channel: "C0PUBLIC" })).rejects.toThrow("can't tell whether <@U0ALICE> may read C0PUBLIC");
    expect(fake.callsTo("conversations.history")).toHaveLength(0);
    expect(String(await run("read_channel", { channel: "C0HOME" }))).toContain("No messages in C0HOME");
  });

  it("read_thread returns the root and the newest replies of a long thread", async () => {
    fake.addMessage({ channel: "C0LONG", ts: "1700001000.000100", user: "U0BOB", text: "root" });
    for (let i = 1; i <= 450; i++)
      fake.addMessage({
        channel: "C0LONG",
        ts: `${1_700_001_000 + i}.000100`,
        thread_ts: "1700001000.000100",
        user: "U0CAROL",
        text: `reply ${i}`,
      });
    const lines = String(await run("read_thread", { channel: "C0LONG", thread_ts: "1700001000.000100" })).split("\n");
    expect(lines).toHaveLength(50);
    expect(lines[0]).toContain("<@U0BOB>: root");
    expect(lines[1]).toContain("reply 402");
    expect(lines.at(-1)).toContain("reply 450");
  });

  it("post_message refuses a channel the requester is not a member of, and posts nothing", async () => {
    fake.setChannelKind("C0BOARD", "private");
    fake.setMembers("C0BOARD", [BOT_USER_ID, "U0BOSS"]);
    await expect(run("post_message", { channel: "C0BOARD", text: "hello board" })).rejects.toThrow("<@U0ALICE> is not in C0BOARD");
    expect(fake.callsTo("chat.postMessage")).toHaveLength(0);
  });

  it("post_message posts where the requester is a member, and in the conversation they asked from", async () => {
    fake.setMembers("C0TEAM", [BOT_USER_ID, "U0ALICE"]);
    expect(String(await run("post_message", { channel: "C0TEAM", text: "hi team" }))).toMatch(/^Posted to C0TEAM/);
    fake.setMembers("C0HOME", [BOT_USER_ID]);
    expect(String(await run("post_message", { channel: "C0HOME", text: "hi home" }))).toMatch(/^Posted to C0HOME/);
  });

  it("post_message is sent once even when the request fails on the way", async () => {
    fake.fail("chat.postMessage", { status: 500 });
    await expect(run("post_message", { channel: "C0TEAM", text: "once only" })).rejects.toThrow(/HTTP 500/);
    expect(fake.callsTo("chat.postMessage")).toHaveLength(1);
  });

  it("post_message tells the model about a rate limit instead of waiting and sending again", async () => {
    fake.fail("chat.postMessage", { status: 429, retryAfterSeconds: 30 });
    await expect(run("post_message", { channel: "C0TEAM", text: "later" })).rejects.toThrow(/rate limiting/);
    expect(fake.callsTo("chat.postMessage")).toHaveLength(1);
  });
});
