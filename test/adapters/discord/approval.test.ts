// Discord's own part of an approval, end to end through discord.js: the card and its answer go
// through the click's interaction (a deferred update, then follow-ups, also for the run's next
// approval), the posted write pings nobody, an approver may hold a role, an expiry shows on the
// card and below it, a button that is not ours is answered privately; the Discord chat tools, and
// no interaction token in the audit log. Who may decide, exactly-once writes, denial, restarts and
// the recorded decision are the surfaces' contract (test/adapters/surface-contract-approvals.test.ts).
import { afterEach, describe, expect, it } from "vitest";
import { call, say, type ScriptStep } from "../../support/model-scripted.js";
import type { ModelRequest } from "../../../src/contracts/types.js";
import {
  askUntilApproval,
  followUpWith,
  originalPath,
  startDiscordHarness,
  webhookPath,
  type DiscordApprovalCard,
  type DiscordHarness,
} from "../../support/discord-harness.js";
import { until } from "../../support/until.js";
import { createAuditLog } from "../../../src/governance/audit-log.js";

let harness: DiscordHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const NOTICE = "Deploy starts at 5pm.";

/** The model asks to post the notice in #random, then answers with what the tool said. */
function postScript(channel: () => string): ScriptStep[] {
  return [() => call("post_message", { channel: `<#${channel()}>`, text: NOTICE }), (request) => say(`Done: ${lastToolMessage(request)}`)];
}

function lastToolMessage(request: ModelRequest): string {
  const tool = [...request.messages].reverse().find((message) => message.role === "tool");
  return tool?.role === "tool" ? tool.content : "(no tool message)";
}

/** Asks with /ask and waits for the approval message with its buttons. */
async function askAndWaitForApproval(h: DiscordHarness, question = "announce the deploy in #random"): Promise<DiscordApprovalCard> {
  const card = await askUntilApproval(h, h.alice, question);
  expect(card.content).toContain("post_message");
  expect(card.content).toContain(NOTICE);
  expect(card.approve.length).toBeLessThan(100);
  return card;
}

function postsOfNotice(h: DiscordHarness) {
  return h.fake
    .callsTo("POST", new RegExp(`^/channels/${h.fake.random.id}/messages$`))
    .filter((request) => request.body.content === NOTICE);
}

describe("Discord approvals", () => {
  it("posts once the requester approves, shows who decided and answers through the click", async () => {
    harness = await startDiscordHarness({ script: postScript(() => harness!.fake.random.id) });
    const { fake, alice } = harness;
    const approval = await askAndWaitForApproval(harness);
    expect(postsOfNotice(harness)).toHaveLength(0);

    const click = fake.clickButton(approval.messageId, approval.approve, alice);
    const answer = await followUpWith(fake, click.token, (content) => content.startsWith("Done:"));
    expect(fake.callsTo("POST", new RegExp(`/interactions/${click.id}/`))[0]!.body).toEqual({ type: 6 });
    expect(answer.body.content).toMatch(/^Done: Posted 1 message in <#\d+>/);
    expect(postsOfNotice(harness)).toHaveLength(1);
    expect(postsOfNotice(harness)[0]!.body.allowed_mentions).toEqual({ parse: [], replied_user: false });

    const decided = fake.callsTo("PATCH", originalPath(fake, click.token)).at(-1)!;
    expect(decided.body.content).toContain(`✅ Approved by <@${alice.id}>`);
    expect(decided.body.components[0].components.every((button: { disabled: boolean }) => button.disabled)).toBe(true);
    const reply = fake.messagesIn(fake.general.id).find((message) => message.content === answer.body.content)!;
    const trace = await fake.waitForCall("POST", new RegExp(`^/channels/${reply.id}/messages$`));
    expect(trace.body.content).toContain("post_message");
  });

  it("asks again through the click when the resumed run needs another approval", async () => {
    harness = await startDiscordHarness({
      script: [
        () => call("post_message", { channel: harness!.fake.random.id, text: NOTICE }),
        () => call("post_message", { channel: harness!.fake.random.id, text: "Second notice." }),
        say("Both notices are up."),
      ],
    });
    const { fake, alice } = harness;
    const first = await askAndWaitForApproval(harness);
    const firstClick = fake.clickButton(first.messageId, first.approve, alice);

    await followUpWith(fake, firstClick.token, (content) => content.startsWith("⏸️"));
    const again = await fake.waitForCall(
      "POST",
      webhookPath(fake, firstClick.token),
      (request) => Array.isArray(request.body.components) && request.body.components.length > 0,
    );
    expect(again.body.content).toContain("Second notice.");
    const second = fake.messagesIn(fake.general.id).find((message) => message.content === again.body.content)!;
    const secondClick = fake.clickButton(second.id, (again.body.components[0].components[0] as { custom_id: string }).custom_id, alice);

    await followUpWith(fake, secondClick.token, (content) => content === "Both notices are up.");
    expect(postsOfNotice(harness)).toHaveLength(1);
    expect(fake.callsTo("POST", new RegExp(`^/channels/${fake.random.id}/messages$`)).map((request) => request.body.content)).toEqual([
      NOTICE,
      "Second notice.",
    ]);
  });

  it("lets a person with the approver role decide (DISCORD_APPROVER_ROLE)", async () => {
    harness = await startDiscordHarness({ script: postScript(() => harness!.fake.random.id) });
    const { fake, dave } = harness;
    const approval = await askAndWaitForApproval(harness);
    const byRole = fake.clickButton(approval.messageId, approval.approve, dave, [harness.approverRole]);
    await followUpWith(fake, byRole.token, (content) => content.startsWith("Done:"));
    expect(postsOfNotice(harness)).toHaveLength(1);
  });

  it("shows an expiry noticed by the service on the approval message and posts the summary below it", async () => {
    let now = Date.now();
    harness = await startDiscordHarness({
      script: [() => call("post_message", { channel: harness!.fake.random.id, text: NOTICE })],
      whenExhausted: say("I wanted to post the notice but nobody approved it in time."),
      clock: () => now,
    });
    const { fake } = harness;
    const approval = await askAndWaitForApproval(harness);

    now += 16 * 60_000;
    expect(await harness.service.sweepExpiredApprovals()).toBe(1);
    const marked = await fake.waitForCall("PATCH", new RegExp(`^/channels/${fake.general.id}/messages/${approval.messageId}$`));
    expect(marked.body.content).toContain("⌛ Expired");
    expect(marked.body.components[0].components.every((button: { disabled: boolean }) => button.disabled)).toBe(true);
    const summary = await fake.waitForCall("POST", new RegExp(`^/channels/${fake.general.id}/messages$`), (request) =>
      String(request.body.content).startsWith("I wanted"),
    );
    expect(summary.body.message_reference.message_id).toBe(approval.messageId);
    expect(summary.body.content).toMatch(/\n\n⚠️ /);
    expect(postsOfNotice(harness)).toHaveLength(0);
  });

  it("shows an expiry found by a late click and answers with the summary through it", async () => {
    let now = Date.now();
    harness = await startDiscordHarness({
      script: [() => call("post_message", { channel: harness!.fake.random.id, text: NOTICE })],
      whenExhausted: say("Nobody approved the notice in time."),
      clock: () => now,
    });
    const { fake, alice } = harness;
    const approval = await askAndWaitForApproval(harness);

    now += 16 * 60_000;
    const click = fake.clickButton(approval.messageId, approval.approve, alice);
    const summary = await followUpWith(fake, click.token, (content) => content.startsWith("Nobody"));
    expect(summary.body.content).toMatch(/\n\n⚠️ /);
    expect(fake.callsTo("PATCH", originalPath(fake, click.token)).at(-1)!.body.content).toContain("⌛ Expired");
    expect(postsOfNotice(harness)).toHaveLength(0);
  });

  it("answers a button that is not one of ours with an ephemeral note", async () => {
    harness = await startDiscordHarness({ script: postScript(() => harness!.fake.random.id) });
    const { fake, alice } = harness;
    const approval = await askAndWaitForApproval(harness);

    const click = fake.clickButton(approval.messageId, "appr:z:not-valid", alice);
    const callback = await fake.waitForCall("POST", new RegExp(`/interactions/${click.id}/`));
    expect(callback.body.type).toBe(6);
    const note = await fake.waitForCall("POST", webhookPath(fake, click.token));
    expect(note.body).toMatchObject({ flags: 64, content: expect.stringMatching(/could not read this button/) });
  });
});

describe("Discord chat tools", () => {
  it("post_message refuses a channel of another server with an error the model reads", async () => {
    let foreign = "";
    harness = await startDiscordHarness({
      script: [() => call("post_message", { channel: foreign, text: NOTICE }), (request) => say(`Could not: ${lastToolMessage(request)}`)],
    });
    const { fake, alice } = harness;
    foreign = fake.foreignChannel().id;
    const approval = await askAndWaitForApproval(harness);

    const click = fake.clickButton(approval.messageId, approval.approve, alice);
    const answer = await followUpWith(fake, click.token, (content) => content.startsWith("Could not:"));
    expect(answer.body.content).toContain("is not in this server");
    expect(fake.callsTo("POST", new RegExp(`^/channels/${foreign}/messages$`))).toHaveLength(0);
  });

  it("read_channel gives the model the channel's latest messages, oldest first", async () => {
    harness = await startDiscordHarness({
      script: [() => call("read_channel", { channel: harness!.fake.general.id, limit: 3 }), (request) => say(lastToolMessage(request))],
    });
    const { fake, alice, bob } = harness;
    fake.userMessage(alice, "first, not read");
    fake.userMessage(bob, "hello team");
    fake.userMessage(alice, "hi bob");
    const { token } = fake.slashCommand("ask", alice, { values: { question: "what was said?" } });

    const answer = await fake.waitForCall("PATCH", originalPath(fake, token), (request) =>
      String(request.body.content).includes("hello team"),
    );
    // The third newest message is the bot's own deferred reply to this /ask.
    expect(answer.body.content).toMatch(/^\[[\d-]+ [\d:]+ UTC · \d+\] bob: hello team\n\[[^\]]+\] alice: hi bob\n.*agent-bot \(bot\): /);
    expect(answer.body.content).not.toContain("first, not read");
  });

  it("read_channel refuses a bad channel reference before calling Discord", async () => {
    harness = await startDiscordHarness({
      script: [call("read_channel", { channel: "#general" }), (request) => say(lastToolMessage(request))],
    });
    const { fake, alice } = harness;
    const { token } = fake.slashCommand("ask", alice, { values: { question: "read general" } });
    const answer = await fake.waitForCall("PATCH", originalPath(fake, token), (request) => !String(request.body.content).startsWith("⏳"));
    expect(answer.body.content).toContain("channel id");
    expect(fake.callsTo("GET", /^\/channels\//)).toHaveLength(0);
  });
});

describe("Discord's secrets", () => {
  it("stay out of the audit log: no interaction token in the request, the decision or the write", async () => {
    harness = await startDiscordHarness({ script: postScript(() => harness!.fake.random.id) });
    const { fake, alice } = harness;
    const approval = await askAndWaitForApproval(harness);
    const click = fake.clickButton(approval.messageId, approval.approve, alice);
    await followUpWith(fake, click.token, (content) => content.startsWith("Done:"));
    const audit = createAuditLog(harness.store);
    await until(async () => (await audit.list({})).length >= 3, "the request, the decision and the write in the audit log");
    const entries = JSON.stringify(await audit.list({}));
    expect(entries).toContain("post_message");
    expect(entries).not.toMatch(/interaction-token-/);
  });
});
