import { ChannelType, Client } from "discord.js";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { approvalButtons, approvalCustomId, parseApprovalCustomId } from "../src/surfaces/discord/approval-buttons.js";
import { isApprover } from "../src/surfaces/discord/approval-clicks.js";
import { createApprovalMessages } from "../src/surfaces/discord/approval-messages.js";
import { createDiscordTools } from "../src/surfaces/discord/chat-tools.js";
import { channelKindOf, conversationKey, discordOrigin } from "../src/surfaces/discord/conversation.js";
import { isForBot, questionOf } from "../src/surfaces/discord/mentions.js";
import {
  answerText,
  approvalText,
  decidersText,
  memoryText,
  progressText,
  threadName,
  withClosingLine,
} from "../src/surfaces/discord/messages.js";
import type { PendingApproval } from "../src/agent/types.js";
import { silentLogger } from "../src/logger.js";
import { mapStore } from "./support/map-store.js";

const alice = { id: "111111111111111111", name: "alice" };

function pending(args: unknown): PendingApproval {
  return {
    runId: "AbCdEf12",
    callId: "call_1",
    tool: "post_message",
    args,
    requester: alice,
    origin: discordOrigin({ guildId: "1", channelId: "2", channelKind: "text", requester: alice }),
    expiresAt: 1_700_000_000_000,
  };
}

describe("approval button ids", () => {
  it("round-trips and stays under Discord's 100 characters at the loop's longest ids", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("approve" as const, "deny" as const),
        fc.string({ unit: fc.constantFrom(..."abcXYZ019-_"), minLength: 1, maxLength: 16 }),
        fc.string({ unit: fc.constantFrom(..."abcXYZ019-_:."), minLength: 1, maxLength: 40 }),
        (decision, runId, callId) => {
          const id = approvalCustomId({ decision, runId, callId });
          expect(id.length).toBeLessThan(100);
          expect(parseApprovalCustomId(id)).toEqual({ decision, runId, callId });
        },
      ),
    );
  });

  it("rejects ids that are not ours or are malformed", () => {
    for (const id of [
      "",
      "appr",
      "appr:x:run:call",
      "appr:a::call",
      "appr:a:run:",
      "appr:a:run with space:call",
      `appr:a:${"r".repeat(33)}:call`,
      `appr:a:run:${"c".repeat(41)}`,
      "other:a:run:call",
    ]) {
      expect(parseApprovalCustomId(id)).toBeUndefined();
    }
  });

  it("builds an Approve and a Deny button that can be disabled", () => {
    const [row] = approvalButtons("run1", "call_1", { disabled: true });
    expect(row!.components.map((button) => [button.label, button.custom_id, button.disabled])).toEqual([
      ["Approve", "appr:a:run1:call_1", true],
      ["Deny", "appr:d:run1:call_1", true],
    ]);
  });
});

describe("conversations", () => {
  it("keys guild channels, threads and DMs", () => {
    expect(conversationKey("10", "20")).toBe("discord:10:20");
    expect(conversationKey(null, "30")).toBe("discord:dm:30");
    expect(discordOrigin({ guildId: "10", channelId: "20", channelKind: "thread", requester: alice, messageId: "40" })).toEqual({
      surface: "discord",
      conversationKey: "discord:10:20",
      requester: alice,
      place: { guild: "10", channel: "20", channelKind: "thread", message: "40" },
    });
    expect(discordOrigin({ guildId: null, channelId: "30", channelKind: "dm", requester: alice }).place).toEqual({
      channel: "30",
      channelKind: "dm",
    });
  });

  it("knows where threads can be started", () => {
    expect(channelKindOf(ChannelType.GuildText)).toBe("text");
    expect(channelKindOf(ChannelType.GuildAnnouncement)).toBe("text");
    expect(channelKindOf(ChannelType.PublicThread)).toBe("thread");
    expect(channelKindOf(ChannelType.DM)).toBe("dm");
    expect(channelKindOf(ChannelType.GuildVoice)).toBe("other");
    expect(channelKindOf(undefined)).toBe("other");
  });
});

describe("mentions", () => {
  const message = (fields: {
    bot?: boolean;
    id?: string;
    guildId?: string | null;
    mentions?: string[];
    roles?: Array<{ id: string; botId?: string }>;
    webhookId?: string | null;
    system?: boolean;
  }) => ({
    author: { id: fields.id ?? "5", bot: fields.bot ?? false },
    webhookId: fields.webhookId ?? null,
    system: fields.system ?? false,
    guildId: fields.guildId === undefined ? "1" : fields.guildId,
    mentions: {
      users: new Map((fields.mentions ?? []).map((id) => [id, {}])),
      roles: new Map((fields.roles ?? []).map((role) => [role.id, { id: role.id, tags: role.botId ? { botId: role.botId } : null }])),
    },
  });
  const is = (fields: Parameters<typeof message>[0]) => isForBot(message(fields) as unknown as Parameters<typeof isForBot>[0], "99");

  it("answers mentions and DMs from people only", () => {
    expect(is({ mentions: ["99"] })).toBe(true);
    expect(is({ guildId: null })).toBe(true);
    expect(is({})).toBe(false);
    expect(is({ mentions: ["98"] })).toBe(false);
    expect(is({ mentions: ["99"], bot: true })).toBe(false);
    expect(is({ guildId: null, id: "99" })).toBe(false);
    expect(is({ mentions: ["99"], webhookId: "7" })).toBe(false);
    expect(is({ mentions: ["99"], system: true })).toBe(false);
  });

  it("answers a mention of the bot's managed role, not of other roles", () => {
    expect(is({ roles: [{ id: "7", botId: "99" }] })).toBe(true);
    expect(is({ roles: [{ id: "7" }, { id: "8", botId: "98" }] })).toBe(false);
    expect(questionOf("<@&7> what now?", "99", ["7"])).toBe("what now?");
  });

  it("takes the bot's mention out of the question and keeps the rest as written", () => {
    expect(questionOf("<@99> what is\n```js\n1+1\n```", "99")).toBe("what is\n```js\n1+1\n```");
    expect(questionOf("hey <@!99>, and <@12>?", "99")).toBe("hey , and <@12>?");
    expect(questionOf("<@99>", "99")).toBe("");
  });
});

describe("approvers", () => {
  it("accepts configured user ids and members of the approver role only", () => {
    const deciders = { approvers: ["7"], approverRole: "70" };
    expect(isApprover(deciders, "7", [])).toBe(true);
    expect(isApprover(deciders, "8", ["70"])).toBe(true);
    expect(isApprover(deciders, "8", ["71"])).toBe(false);
    expect(isApprover({ approvers: [] }, "8", ["70"])).toBe(false);
  });

  it("names who can decide", () => {
    expect(decidersText(alice, { approvers: [] })).toBe(`Only <@${alice.id}> can decide.`);
    expect(decidersText(alice, { approvers: [alice.id, "7"], approverRole: "70" })).toBe(
      `Only <@${alice.id}>, <@7> or members of <@&70> can decide.`,
    );
  });
});

describe("messages", () => {
  it("keeps an approval request within one message, whatever the arguments", () => {
    const text = approvalText(pending({ channel: "2", text: "x".repeat(10_000) }), { approvers: [] });
    expect(text.length).toBeLessThanOrEqual(2000);
    expect(text).toContain("post_message");
    expect(text).toContain("<t:1700000000:R>");
    expect(withClosingLine("y".repeat(2000), "✅ Approved by <@1>").length).toBeLessThanOrEqual(2000);
    expect(withClosingLine(withClosingLine("request", "✅ Approved by <@1>"), "✅ Approved by <@1>")).toBe(
      "request\n\n✅ Approved by <@1>",
    );
  });

  it("cannot be broken out of its code block by the arguments", () => {
    const text = approvalText(pending({ text: "```\n@everyone```" }), { approvers: [] });
    expect(text.match(/```/g)).toHaveLength(2);
  });

  it("adds the guard line after the answer, and says so when the answer is empty", () => {
    const base = { status: "answered" as const, runId: "r", steps: [], usage: { promptTokens: 0, completionTokens: 0 } };
    expect(answerText({ ...base, answer: "Found it." })).toBe("Found it.");
    expect(
      answerText({
        ...base,
        answer: "Partial.",
        stop: { guard: "steps", detail: "10/10", sentence: "Stopped: the step limit was reached." },
      }),
    ).toBe("Partial.\n\n⚠️ Stopped: the step limit was reached.");
    expect(answerText({ ...base, answer: "  " })).toBe("(No answer came back.)");
  });

  it("describes progress without letting a tool name break the formatting", () => {
    expect(progressText({ type: "step_started", runId: "r", step: 2 })).toBe("⏳ Working… step 2");
    expect(progressText({ type: "tool_called", runId: "r", step: 2, call: { id: "c", name: "a`b", arguments: "{}" } })).toBe(
      "⏳ Step 2: running `a'b`…",
    );
    expect(progressText({ type: "model_replied", runId: "r", step: 2, text: null, toolCalls: [] })).toBeUndefined();
  });

  it("lists remembered facts within one message", () => {
    const facts = Array.from({ length: 100 }, (_, index) => ({
      id: String(index),
      text: `Fact number ${index} ${"z".repeat(40)}`,
      createdAt: 0,
      lastUsedAt: 0,
      uses: 0,
    }));
    const text = memoryText(facts);
    expect(text.length).toBeLessThanOrEqual(2000);
    expect(text).toMatch(/…and \d+ more\.$/);
  });

  it("names trace threads within Discord's limit", () => {
    expect(threadName("  what\nis this? ")).toBe("Trace: what is this?");
    expect(threadName("q".repeat(500)).length).toBeLessThanOrEqual(100);
  });
});

describe("chat tool arguments", () => {
  const client = new Client({ intents: [] });
  const tools = createDiscordTools(client, client.rest);
  const readChannel = tools[0]!;
  const postMessage = tools[1]!;
  afterAll(() => client.destroy());

  it("accept a channel id or a <#id> mention and give back the id", () => {
    expect(readChannel.schema.parse({ channel: "<#123456789012345678>" })).toEqual({ channel: "123456789012345678", limit: 20 });
    expect(postMessage.schema.parse({ channel: " 123456789012345678 ", text: "hi" })).toEqual({
      channel: "123456789012345678",
      text: "hi",
    });
  });

  it("reject anything else with a message the model can act on", () => {
    const issues = (schema: typeof readChannel.schema, value: unknown) =>
      schema.safeParse(value).error?.issues.map((issue) => issue.message) ?? [];
    expect(issues(readChannel.schema, { channel: "#general" })).toEqual([
      "expects a channel id (digits only) or a channel mention like <#123456789012345678>",
    ]);
    expect(issues(readChannel.schema, { channel: "123456789012345678", limit: 0 })).toEqual(["expects at least 1"]);
    expect(issues(readChannel.schema, { channel: "123456789012345678", limit: 500 })).toEqual(["expects at most 50"]);
    expect(issues(postMessage.schema, { channel: "123456789012345678", text: "   " })).toEqual(["expects some text"]);
    expect(issues(postMessage.schema, { channel: "123456789012345678", text: "x".repeat(9000) })).toEqual([
      "expects at most 8000 characters",
    ]);
    expect(issues(postMessage.schema, { channel: "<@123456789012345678>", text: "hi" })).toHaveLength(1);
  });

  it("refuse requests made outside a server", async () => {
    const origin = discordOrigin({ guildId: null, channelId: "30", channelKind: "dm", requester: alice });
    await expect(
      postMessage.execute({ channel: "123456789012345678", text: "hi" }, { signal: new AbortController().signal, runId: "r", origin }),
    ).rejects.toThrow("post_message only works for requests made in a server, not in direct messages.");
  });
});

describe("approval message records", () => {
  it("remembers where an approval message is until a day after it expires", async () => {
    const store = mapStore();
    const records = createApprovalMessages(store, silentLogger, () => 1_700_000_000_000 - 60_000);
    await records.remember(pending({}), { channelId: "20", messageId: "30", question: "q".repeat(500) });
    const found = await records.find("AbCdEf12", "call_1");
    expect(found).toEqual({ channelId: "20", messageId: "30", question: "q".repeat(200) });
    expect(store.ttls.get("discord:approval-message:AbCdEf12:call_1")).toBe(60_000 + 24 * 60 * 60_000);
    expect(await records.find("AbCdEf12", "call_2")).toBeUndefined();
  });

  it("ignores a stored record that is not valid, and a store that fails", async () => {
    const store = mapStore();
    store.data.set("discord:approval-message:r:c", { channelId: "not digits", messageId: 5 });
    expect(await createApprovalMessages(store, silentLogger, Date.now).find("r", "c")).toBeUndefined();
    const broken = { ...mapStore(), get: () => Promise.reject(new Error("down")), set: () => Promise.reject(new Error("down")) };
    const records = createApprovalMessages(broken, silentLogger, Date.now);
    await expect(records.remember(pending({}), { channelId: "1", messageId: "2", question: "q" })).resolves.toBeUndefined();
    expect(await records.find("r", "c")).toBeUndefined();
  });
});
