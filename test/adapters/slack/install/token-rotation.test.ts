// Token rotation on every path, against a fake Slack whose tokens live three seconds: mentions
// over several lifetimes, an approval clicked after the token it was asked with expired, a
// restart (a new process on the same store), a file downloaded after it and a scheduled slot — every call
// is made with a token Slack takes, and each refresh token is spent once.
import { afterEach, describe, expect, it } from "vitest";
import { call, say, ScriptedModel } from "../../../support/model-scripted.js";
import { blockActionPayload, mentionEvent, postEvent, postInteraction } from "../../../support/fake-slack-requests.js";
import { startSlackHarness, type SlackHarness } from "../../../support/slack-harness.js";
import { ALPHA, install } from "../../../support/slack-installs.js";
import { APPROVE_ACTION } from "../../../../src/adapters/slack/approval-message.js";
import { manualClock } from "../../../support/schedule-harness.js";

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const LIFETIME_SECONDS = 3;
const alphaAsks = { team: "T0ALPHA", botUserId: ALPHA.botUserId };
const REFUSED = new Set(["token_expired", "invalid_auth", "not_authed", "token_revoked"]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("token rotation", () => {
  it("refreshes before expiry on events, a resumed approval, after a restart, for a file and a scheduled slot; no call with an expired token", async () => {
    const model = new ScriptedModel(
      [
        say("answer 1"),
        say("answer 2"),
        call("post_message", { channel: "C0ALPHA", text: "the note" }, "call_post"),
        say("posted it"),
        say("answer after restart"),
        say("the file's total is 42"),
        say("the slot's report"),
      ],
      { whenExhausted: say("nothing more") },
    );
    const slots = manualClock(Date.now());
    harness = await startSlackHarness({ model, installs: {}, schedules: { clock: slots } });
    const { fake } = harness;
    fake.rotateTokens(LIFETIME_SECONDS);
    expect((await install(harness.baseUrl, fake, ALPHA)).status).toBe(200);

    const ask = async (text: string, ts: string) =>
      postEvent(harness!.eventsUrl, mentionEvent({ text: `<@U0BOTA> ${text}`, ts, channel: "C0ALPHA", workspace: alphaAsks }));
    // Each question comes after the token it would have used expired.
    await ask("one", "1700200000.000100");
    await fake.waitForShown((text) => text === "answer 1");
    await sleep(LIFETIME_SECONDS * 1000);
    await ask("two", "1700200001.000100");
    await fake.waitForShown((text) => text === "answer 2");

    await ask("post a note", "1700200002.000100");
    const asked = await fake.waitForCall("chat.postMessage", (c) => JSON.stringify(c.args.blocks ?? []).includes(APPROVE_ACTION));
    const card = fake.threadMessages("C0ALPHA", "1700200002.000100").find((m) => JSON.stringify(m.blocks ?? []).includes(APPROVE_ACTION))!;
    const actions = (asked.args.blocks as Array<{ type: string; elements?: Array<{ value?: string }> }>).find((b) => b.type === "actions")!;
    await sleep(LIFETIME_SECONDS * 1000);
    await postInteraction(
      harness.eventsUrl,
      blockActionPayload({
        user: "U0ALICE",
        actionId: APPROVE_ACTION,
        value: actions.elements![0]!.value!,
        channel: "C0ALPHA",
        messageTs: card.ts,
        threadTs: "1700200002.000100",
        blocks: card.blocks ?? [],
        workspace: alphaAsks,
      }),
    );
    await fake.waitForShown((text) => text === "posted it");

    await ask("schedule in 20 minutes: report the status", "1700200004.000100");
    await fake.waitForShown((text) => /Scheduled sch_[a-z0-9]{8}/.test(text));

    await harness.restart();
    await sleep(LIFETIME_SECONDS * 1000);
    await ask("after the restart", "1700200003.000100");
    await fake.waitForShown((text) => text === "answer after restart");

    // A file is downloaded with the workspace's token of the moment, not the one the message came with.
    const file = fake.addFile({ name: "totals.csv", mimetype: "text/csv", data: Buffer.from("total\n42\n") });
    await sleep(LIFETIME_SECONDS * 1000);
    await postEvent(
      harness.eventsUrl,
      mentionEvent({
        text: "<@U0BOTA> what is the total?",
        ts: "1700200005.000100",
        channel: "C0ALPHA",
        workspace: alphaAsks,
        files: [file],
      }),
    );
    await fake.waitForShown((text) => text === "the file's total is 42");
    expect(JSON.stringify(model.requests.at(-1)?.messages ?? [])).toContain("42");
    expect(fake.fileRequests).toHaveLength(1);

    // The slot fires in the process started after the restart, with a token expired meanwhile.
    await sleep(LIFETIME_SECONDS * 1000);
    slots.advance(20 * 60_000);
    await harness.schedules!.settle();
    await fake.waitForShown((text) => text === "the slot's report");

    const refused = fake.calls.filter((c) => c.error !== undefined && REFUSED.has(c.error));
    expect(refused).toEqual([]);
    const refreshes = fake.callsTo("oauth.v2.access").filter((c) => c.args.grant_type === "refresh_token");
    expect(refreshes.length).toBeGreaterThanOrEqual(3);
    expect([...fake.refreshUses.values()].every((uses) => uses === 1)).toBe(true);
    // Every call into the workspace's channel was made with the workspace's own token.
    expect(new Set(fake.calls.filter((c) => c.args.channel === "C0ALPHA").map((c) => c.workspace))).toEqual(new Set(["T:T0ALPHA"]));
    const tokens = fake.calls.flatMap((c) => (c.token ? [c.token] : []));
    const logged = harness.logs.map((line) => JSON.stringify(line)).join("\n");
    expect(tokens.filter((token) => logged.includes(token))).toEqual([]);
  }, 60_000);
});
