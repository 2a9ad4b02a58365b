import { afterEach, describe, expect, it } from "vitest";
import { call, say, type ScriptStep } from "../../support/model-scripted.js";
import type { ModelRequest } from "../../../src/contracts/types.js";
import { followUpWith, originalPath, startDiscordHarness, webhookPath, type DiscordHarness } from "../../support/discord-harness.js";
import { failingResumes } from "../../support/failing-queue.js";
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

interface Approval {
  readonly messageId: string;
  readonly approve: string;
  readonly deny: string;
}

/** Asks with /ask and waits for the approval message with its buttons. */
async function askAndWaitForApproval(h: DiscordHarness, question = "announce the deploy in #random"): Promise<Approval> {
  const { fake } = h;
  const { token } = fake.slashCommand("ask", h.alice, { values: { question } });
  await fake.waitForCall("PATCH", originalPath(fake, token), (request) => String(request.body.content).startsWith("⏸️"));
  const posted = await fake.waitForCall(
    "POST",
    webhookPath(fake, token),
    (request) => Array.isArray(request.body.components) && request.body.components.length > 0,
  );
  const message = fake.messagesIn(fake.general.id).find((candidate) => candidate.content === posted.body.content)!;
  const [approve, deny] = (posted.body.components[0].components as { custom_id: string }[]).map((button) => button.custom_id);
  expect(posted.body.content).toContain("post_message");
  expect(posted.body.content).toContain(NOTICE);
  expect(approve!.length).toBeLessThan(100);
  return { messageId: message.id, approve: approve!, deny: deny! };
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

  it("tells the requester their approval is recorded when the run can't go on at once, and goes on when the queue is back", async () => {
    let queue: ReturnType<typeof failingResumes> | undefined;
    harness = await startDiscordHarness({
      script: postScript(() => harness!.fake.random.id),
      wrapQueue: (inner) => (queue = failingResumes(inner, 6)),
    });
    const { fake, alice } = harness;
    const approval = await askAndWaitForApproval(harness);
    const click = fake.clickButton(approval.messageId, approval.approve, alice);
    const note = await fake.waitForCall("POST", webhookPath(fake, click.token), (request) =>
      String(request.body.content).includes("recorded"),
    );
    expect(note.body.flags).toBe(64);
    expect(note.body.content).toMatch(/no need to click again/);
    expect(fake.callsTo("PATCH", originalPath(fake, click.token)).at(-1)!.body.content).toContain(`✅ Approved by <@${alice.id}>`);
    await followUpWith(fake, click.token, (content) => content.startsWith("Done:"));
    expect(queue!.refused).toBe(6);
    expect(postsOfNotice(harness)).toHaveLength(1);
  });

  it("refuses anyone else ephemerally and runs nothing", async () => {
    harness = await startDiscordHarness({ script: postScript(() => harness!.fake.random.id) });
    const { fake, bob } = harness;
    const approval = await askAndWaitForApproval(harness);

    const click = fake.clickButton(approval.messageId, approval.approve, bob);
    const refusal = await fake.waitForCall("POST", webhookPath(fake, click.token));
    expect(refusal.body.flags).toBe(64);
    expect(refusal.body.content).toContain("can't decide");
    expect(refusal.body.content).toContain(`<@${harness.alice.id}>`);
    expect(refusal.body.content).toContain(`<@&${harness.approverRole}>`);
    expect(fake.callsTo("PATCH", originalPath(fake, click.token))).toHaveLength(0);
    expect(postsOfNotice(harness)).toHaveLength(0);
  });

  it("lets configured approvers decide: by user id and by role", async () => {
    harness = await startDiscordHarness({
      script: [...postScript(() => harness!.fake.random.id), ...postScript(() => harness!.fake.random.id)],
    });
    const { fake, carol, dave } = harness;

    const first = await askAndWaitForApproval(harness, "first notice");
    const byId = fake.clickButton(first.messageId, first.approve, carol);
    await followUpWith(fake, byId.token, (content) => content.startsWith("Done:"));

    const second = await askAndWaitForApproval(harness, "second notice");
    const byRole = fake.clickButton(second.messageId, second.approve, dave, [harness.approverRole]);
    await followUpWith(fake, byRole.token, (content) => content.startsWith("Done:"));
    expect(postsOfNotice(harness)).toHaveLength(2);
  });

  it("applies a double click once and tells the second click who decided", async () => {
    harness = await startDiscordHarness({ script: postScript(() => harness!.fake.random.id) });
    const { fake, alice } = harness;
    const approval = await askAndWaitForApproval(harness);

    const first = fake.clickButton(approval.messageId, approval.approve, alice);
    const second = fake.clickButton(approval.messageId, approval.approve, alice);
    const answers = await Promise.race([
      followUpWith(fake, first.token, (content) => content.startsWith("Done:")),
      followUpWith(fake, second.token, (content) => content.startsWith("Done:")),
    ]);
    expect(answers.body.content).toMatch(/^Done: Posted/);
    const already = await Promise.race([
      fake.waitForCall("POST", webhookPath(fake, first.token), (request) => request.body.flags === 64),
      fake.waitForCall("POST", webhookPath(fake, second.token), (request) => request.body.flags === 64),
    ]);
    expect(already.body.content).toBe(`This was already approved by <@${alice.id}>.`);
    expect(postsOfNotice(harness)).toHaveLength(1);
  });

  it("works when the bot restarted between the buttons and the click", async () => {
    harness = await startDiscordHarness({ script: postScript(() => harness!.fake.random.id).slice(0, 1) });
    const { fake, alice } = harness;
    const approval = await askAndWaitForApproval(harness);

    await harness.restart(postScript(() => harness!.fake.random.id).slice(1));
    expect(fake.gateway.identifies).toHaveLength(2);
    const click = fake.clickButton(approval.messageId, approval.approve, alice);
    const answer = await followUpWith(fake, click.token, (content) => content.startsWith("Done:"));
    expect(answer.body.content).toMatch(/^Done: Posted 1 message/);
    expect(postsOfNotice(harness)).toHaveLength(1);
  });

  it("denies: shows who denied, posts nothing and lets the model answer without it", async () => {
    harness = await startDiscordHarness({ script: postScript(() => harness!.fake.random.id) });
    const { fake, alice } = harness;
    const approval = await askAndWaitForApproval(harness);

    const click = fake.clickButton(approval.messageId, approval.deny, alice);
    const answer = await followUpWith(fake, click.token, (content) => content.startsWith("Done:"));
    expect(answer.body.content).toContain("Denied by alice");
    expect(fake.callsTo("PATCH", originalPath(fake, click.token)).at(-1)!.body.content).toContain(`❌ Denied by <@${alice.id}>`);
    expect(postsOfNotice(harness)).toHaveLength(0);
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
