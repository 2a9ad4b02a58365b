import { ChannelType, Client } from "discord.js";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { approvalButtons, approvalCustomId, parseApprovalCustomId, parseButton } from "../../../src/adapters/discord/buttons.js";
import { createDiscordTools } from "../../../src/adapters/discord/chat-tools.js";
import { createDiscordSurface } from "../../../src/adapters/discord/discord-adapter.js";
import { channelKindOf, isForBot, questionOf } from "../../../src/adapters/discord/discord-events.js";
import { conversationAt, conversationKey, decodeInteraction, upgradeOrigin } from "../../../src/adapters/discord/discord-place.js";
import {
  answerText,
  approvalText,
  discordFormat,
  progressText,
  threadName,
  withClosingLine,
} from "../../../src/adapters/discord/messages.js";
import { createApprovalRefs } from "../../../src/adapters/core/approval-refs.js";
import { decidersText, memoryText } from "../../../src/adapters/core/texts.js";
import type { PendingApproval } from "../../../src/contracts/types.js";
import { silentLogger } from "../../../src/logger.js";
import { discordAsked } from "../../support/discord-origins.js";
import { mapStore } from "../../support/map-store.js";

const alice = { id: "111111111111111111", name: "alice" };

function pending(args: unknown): PendingApproval {
  return {
    runId: "AbCdEf12",
    callId: "call_1",
    tool: "post_message",
    args,
    requester: alice,
    origin: discordAsked(alice, { guild: "1", channel: "2" }),
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

  it("reads Stop and feedback buttons too, and nothing else", () => {
    expect(parseButton("stop:run1")).toEqual({ kind: "stop", runId: "run1" });
    expect(parseButton("fb:d:run1:steps")).toEqual({ kind: "feedback", rating: "down", runId: "run1", guard: "steps" });
    expect(parseButton("appr:d:run1:call_1")).toEqual({ kind: "decision", decision: "deny", runId: "run1", callId: "call_1" });
    for (const id of ["stop:", "stop:a:b", "fb:x:run1:none", "fb:u:run1:Not-A-Guard", "other"]) expect(parseButton(id)).toBeUndefined();
  });
});

describe("conversations", () => {
  it("keys guild channels, threads and DMs; a thread is its own conversation, governed by its parent", () => {
    expect(conversationKey("10", "20")).toBe("discord:10:20");
    expect(conversationKey(null, "30")).toBe("discord:dm:30");
    expect(conversationAt({ guild: "10", channel: "20", parent: "15", channelKind: "thread", message: "40" })).toEqual({
      conversationKey: "discord:10:20",
      scope: { channel: "15", thread: "20", dm: false, workspace: "10", link: "https://discord.com/channels/10/20/40" },
      place: { guild: "10", channel: "20", parent: "15", channelKind: "thread", message: "40" },
      inThread: true,
    });
    expect(conversationAt({ guild: null, channel: "30", channelKind: "dm" })).not.toHaveProperty("inThread");
    expect(conversationAt({ guild: null, channel: "30", channelKind: "dm" })).toMatchObject({
      scope: { channel: "30", dm: true },
      place: { channel: "30", channelKind: "dm" },
    });
  });

  it("reads an origin an earlier version stored: its scope, and the interaction token its place held as the reply handle", () => {
    const stored = {
      surface: "discord" as const,
      conversationKey: "discord:10:20",
      requester: alice,
      place: {
        guild: "10",
        channel: "20",
        channelKind: "text",
        interaction: "50",
        application: "60",
        interaction_token: "secret-token",
        interaction_at: "1700000000000",
      },
    };
    const { origin, reply } = upgradeOrigin(stored);
    expect(origin.place).toEqual({ guild: "10", channel: "20", channelKind: "text", interaction: "50" });
    expect(origin.scope).toMatchObject({ channel: "20", dm: false, workspace: "10", roles: [] });
    expect(decodeInteraction(reply)).toEqual({ application: "60", token: "secret-token", at: 1_700_000_000_000, kind: "ask" });
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

describe("who may decide", () => {
  it("names the requester, the approvers and the approver role", () => {
    expect(decidersText(alice, { users: [], roles: [] }, discordFormat)).toBe(`Only <@${alice.id}> can decide.`);
    expect(decidersText(alice, { users: [alice.id, "7"], roles: ["70"] }, discordFormat)).toBe(
      `Only <@${alice.id}>, <@7> or members of <@&70> can decide.`,
    );
  });
});

describe("messages", () => {
  it("keeps an approval request within one message, whatever the arguments", () => {
    const text = approvalText(pending({ channel: "2", text: "x".repeat(10_000) }), { users: [], roles: [] });
    expect(text.length).toBeLessThanOrEqual(2000);
    expect(text).toContain("post_message");
    expect(text).toContain("<t:1700000000:R>");
    expect(withClosingLine("y".repeat(2000), "✅ Approved by <@1>").length).toBeLessThanOrEqual(2000);
    expect(withClosingLine(withClosingLine("request", "✅ Approved by <@1>"), "✅ Approved by <@1>")).toBe(
      "request\n\n✅ Approved by <@1>",
    );
  });

  it("cannot be broken out of its code block by the arguments", () => {
    const text = approvalText(pending({ text: "```\n@everyone```" }), { users: [], roles: [] });
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
    expect(progressText({ kind: "thinking", step: 2 })).toBe("⏳ Working… step 2");
    expect(progressText({ kind: "running", step: 2, tool: "a`b" })).toBe("⏳ Step 2: running `a'b`…");
    expect(progressText({ kind: "ran", step: 2, tool: "calc", outcome: "timeout" })).toBe("⏳ Step 2: `calc` timed out");
  });

  it("lists remembered facts within one message", () => {
    const facts = Array.from({ length: 100 }, (_, index) => ({
      id: String(index),
      text: `Fact number ${index} ${"z".repeat(40)}`,
      createdAt: 0,
      lastUsedAt: 0,
      uses: 0,
    }));
    const text = memoryText(facts, discordFormat);
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
    const origin = discordAsked(alice, { channel: "30", channelKind: "dm" });
    await expect(
      postMessage.execute({ channel: "123456789012345678", text: "hi" }, { signal: new AbortController().signal, runId: "r", origin }),
    ).rejects.toThrow("post_message only works for requests made in a server, not in direct messages.");
  });
});

describe("approval message records", () => {
  const surface = createDiscordSurface({
    config: { token: "t", applicationId: "1", approvers: [] },
    logger: silentLogger,
  });
  const refsOn = (store: ReturnType<typeof mapStore>, now: () => number) =>
    createApprovalRefs({ store, logger: silentLogger, now, ...surface.refs });
  afterAll(() => surface.close());

  it("remembers where an approval message is, under the key an earlier version used, until a day after it expires", async () => {
    const store = mapStore();
    const records = refsOn(store, () => 1_700_000_000_000 - 60_000);
    await records.remember(pending({}), { channelId: "20", messageId: "30", question: "q".repeat(200) });
    expect(await records.find("AbCdEf12", "call_1")).toEqual({ channelId: "20", messageId: "30", question: "q".repeat(200) });
    expect(store.ttls.get("discord:approval-message:AbCdEf12:call_1")).toBe(60_000 + 24 * 60 * 60_000);
    expect(await records.find("AbCdEf12", "call_2")).toBeUndefined();
  });

  it("ignores a stored record that is not valid", async () => {
    const store = mapStore();
    store.data.set("discord:approval-message:r:c", { channelId: "not digits", messageId: 5 });
    expect(await refsOn(store, Date.now).find("r", "c")).toBeUndefined();
  });
});
