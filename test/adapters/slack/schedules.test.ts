// Schedules through the real Slack surface (Bolt over HTTP against the fake Slack): made with
// `@bot schedule <when>: <what>` (the person's timezone from users.info), listed, cancelled by
// their owner only; a slot fires (only the schedules' clock moves) and posts a root message in
// the channel with the run under it; an owner who left pauses it and is told by DM; `usage`.
import { afterEach, describe, expect, it } from "vitest";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";
import { APPROVE_ACTION } from "../../../src/adapters/slack/approval-message.js";
import { createAuditLog } from "../../../src/governance/audit-log.js";
import { addUsage } from "../../../src/memory/run-records/usage-counters.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";
import { BOT_USER_ID, shownText, TEAM_ID } from "../../support/fake-slack.js";
import { clickOnMessage, directMessageEvent, mentionEvent, postEvent, postInteraction } from "../../support/fake-slack-requests.js";
import { settingsOf } from "../../support/governance-harness.js";
import { until } from "../../support/until.js";
import { manualClock, type ManualClock } from "../../support/schedule-harness.js";

let h: SlackHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ADMIN = "U0BOSS";
let ts = 1_700_200_000;

async function start(script = [say("Releases: all green.")], env: Record<string, string> = {}): Promise<ManualClock> {
  const clock = manualClock(Date.now());
  h = await startSlackHarness({
    model: new ScriptedModel(script),
    schedules: { clock },
    env,
    settings: settingsOf({ access: { admins: { slack: [ADMIN] } } }),
  });
  return clock;
}

/** Mentions the bot at the top of #general; resolves with the thread the bot answers in. */
async function mention(user: string, text: string): Promise<string> {
  ts += 1;
  const thread = `${ts}.000100`;
  await postEvent(h!.eventsUrl, mentionEvent({ user, text: `<@${BOT_USER_ID}> ${text}`, ts: thread }));
  return thread;
}

const ok = (method: string) => h!.fake.callsTo(method).filter((call) => call.status === 200 && call.error === undefined);
const repliesIn = (thread: string) =>
  h!.fake
    .threadMessages("C0GENERAL", thread)
    .filter((message) => message.ts !== thread)
    .map(shownText)
    .join("\n");
const privateTo = (user: string) =>
  [
    ...ok("chat.postEphemeral").filter((call) => call.args.user === user),
    ...ok("chat.postMessage").filter((call) => call.args.channel === user),
  ]
    .map((call) => String(call.args.text))
    .join("\n");

async function replyIn(thread: string, expected: RegExp): Promise<string> {
  await until(() => expected.test(repliesIn(thread)), `${expected} in the thread:\n${repliesIn(thread)}`);
  return repliesIn(thread);
}

const idIn = (text: string) => /sch_[a-z0-9]{8}/.exec(text)![0];

describe("schedules on Slack", () => {
  it("makes one in the person's own timezone, shows the next three times with weekday and zone, and where results go", async () => {
    await start();
    h!.fake.setUser("U0ALICE", { team_id: TEAM_ID, tz: "Europe/Berlin" });
    const thread = await mention("U0ALICE", "schedule every weekday at 9:00: summarise #releases");
    const reply = await replyIn(thread, /Scheduled sch_/);
    expect(reply).toMatch(/Scheduled sch_[a-z0-9]{8}: `every weekday at 9:00`\. Next: /);
    const times = reply.match(/\d{4}-\d\d-\d\d 09:00 Europe\/Berlin \((Mon|Tue|Wed|Thu|Fri)\)/g) ?? [];
    expect(times).toHaveLength(3);
    expect(reply).toMatch(/Results will be posted in this channel, each run in a thread of its own\./);
    expect(ok("users.info").some((call) => call.args.user === "U0ALICE")).toBe(true);
  });

  it("makes one from a cron expression with its own timezone, asking Slack for no profile", async () => {
    await start();
    const thread = await mention("U0ALICE", "schedule cron 30 8 * * 1 America/New_York: post the open incidents");
    const reply = await replyIn(thread, /Scheduled sch_/);
    expect(reply.match(/\d{4}-\d\d-\d\d 08:30 America\/New_York \(Mon\)/g)).toHaveLength(3);
    expect(ok("users.info").filter((call) => call.args.user === "U0ALICE")).toHaveLength(0);
  });

  it("refuses with one line when neither the phrase, the person nor SCHEDULE_DEFAULT_TZ gives a timezone", async () => {
    await start();
    const thread = await mention("U0ALICE", "schedule every day at 9:00: water the plants");
    const reply = await replyIn(thread, /Which timezone\?/);
    expect(reply.split("\n")).toHaveLength(1);
    expect(reply).not.toMatch(/Scheduled/);
  });

  it("takes SCHEDULE_DEFAULT_TZ when the person has no timezone", async () => {
    await start(undefined, { SCHEDULE_DEFAULT_TZ: "Asia/Tokyo" });
    const thread = await mention("U0ALICE", "schedule every day at 7:15: water the plants");
    const reply = await replyIn(thread, /Scheduled sch_/);
    expect(reply.match(/07:15 Asia\/Tokyo/g)).toHaveLength(3);
  });

  it("answers `schedule` without `: ` with the usage line, and never asks the model", async () => {
    await start([]);
    const thread = await mention("U0ALICE", "schedule a meeting with Bob");
    await replyIn(thread, /Usage: `schedule /);
    expect(h!.service.tools.list("slack").tools.some((tool) => tool.name === "create_schedule")).toBe(true);
  });

  it("fires a slot once: a root message in the channel, the run's answer in its thread", async () => {
    const clock = await start();
    const thread = await mention("U0ALICE", "schedule in 20 minutes: summarise #releases");
    const id = idIn(await replyIn(thread, /Scheduled sch_/));
    clock.advance(20 * 60_000);
    await h!.schedules!.settle();
    const root = () => ok("chat.postMessage").find((call) => call.args.channel === "C0GENERAL" && call.args.thread_ts === undefined);
    await until(() => root() !== undefined, "a root message for the slot");
    expect(String(root()!.args.text)).toMatch(new RegExp(`⏰ Schedule ${id} of U0ALICE, for \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC`));
    const answer = () => h!.fake.shown((text) => /Releases: all green\./.test(text))[0];
    await until(() => answer() !== undefined, "the slot's answer");
    const under = String(answer()!.thread_ts);
    expect(under).not.toBe(thread);
    expect(h!.fake.message("C0GENERAL", under)?.text).toBe(root()!.args.text);
    const roots = ok("chat.postMessage").filter((call) => call.args.channel === "C0GENERAL" && call.args.thread_ts === undefined);
    expect(roots).toHaveLength(1);
  });

  it("made in a thread reply, the owner chose that thread: each slot's answer goes there, with no root message", async () => {
    const clock = await start();
    const thread = `${++ts}.000100`;
    const reply = `${++ts}.000100`;
    await postEvent(
      h!.eventsUrl,
      mentionEvent({ text: `<@${BOT_USER_ID}> schedule in 20 minutes: summarise #releases`, ts: reply, thread_ts: thread }),
    );
    expect(await replyIn(thread, /Scheduled sch_/)).toMatch(/Results will be posted in this thread\./);
    clock.advance(20 * 60_000);
    await h!.schedules!.settle();
    const answer = () => h!.fake.shown((text) => /Releases: all green\./.test(text))[0];
    await until(() => answer() !== undefined, "the slot's answer");
    expect(answer()).toMatchObject({ channel: "C0GENERAL", thread_ts: thread });
    expect(ok("chat.postMessage").filter((call) => call.args.channel === "C0GENERAL" && call.args.thread_ts === undefined)).toHaveLength(0);
  });

  it("a slot's run that answers [SILENT] posts nothing in the channel: no root message, no working status, no answer", async () => {
    const clock = await start([say(" [SILENT] ")]);
    const thread = await mention("U0ALICE", "schedule in 20 minutes: report new incidents");
    await replyIn(thread, /Scheduled sch_/);
    const before = ok("chat.postMessage").length;
    clock.advance(20 * 60_000);
    await h!.schedules!.settle();
    const audit = createAuditLog(h!.store);
    await until(async () => (await audit.list({ limit: 5 })).some((entry) => entry.kind === "slot_silent"), "the slot recorded as silent");
    expect(ok("chat.postMessage").slice(before)).toEqual([]);
    expect(ok("chat.startStream")).toEqual([]);
  });

  it("a write in a slot's run waits for its owner's click in the slot's thread; anyone else's click is refused", async () => {
    const clock = await start([
      call("post_message", { channel: "C0RANDOM", text: "Deploy at 5pm." }, "call_post"),
      say("Posted the notice."),
    ]);
    const thread = await mention("U0ALICE", "schedule in 20 minutes: announce the deploy in C0RANDOM");
    await replyIn(thread, /Scheduled sch_/);
    clock.advance(20 * 60_000);
    await h!.schedules!.settle();
    const { root, click } = await approvalInSlot(thread);
    const writes = () => ok("chat.postMessage").filter((call) => call.args.channel === "C0RANDOM").length;
    await click("U0BOB");
    await until(() => /You can't decide this one\./.test(privateTo("U0BOB")), "bob's refusal");
    expect(writes()).toBe(0);
    await click("U0ALICE");
    await replyIn(root, /Posted the notice\./);
    expect(writes()).toBe(1);
  });

  it("answers a slot's approval after a restart in the same slot thread, with no second root message", async () => {
    const clock = await start([call("post_message", { channel: "C0RANDOM", text: "Deploy at 5pm." }, "call_post")]);
    const thread = await mention("U0ALICE", "schedule in 20 minutes: announce the deploy in C0RANDOM");
    await replyIn(thread, /Scheduled sch_/);
    clock.advance(20 * 60_000);
    await h!.schedules!.settle();
    const { root, click } = await approvalInSlot(thread);
    await h!.restart(new ScriptedModel([say("Posted after the restart.")]));
    await click("U0ALICE");
    await replyIn(root, /Posted after the restart\./);
    expect(ok("chat.postMessage").filter((call) => call.args.channel === "C0GENERAL" && call.args.thread_ts === undefined)).toHaveLength(1);
  });

  it("keeps a schedule across a restart: the slot fires in the next process, once", async () => {
    const clock = await start([say("After the restart.")]);
    const thread = await mention("U0ALICE", "schedule in 20 minutes: summarise #releases");
    await replyIn(thread, /Scheduled sch_/);
    await h!.restart();
    clock.advance(20 * 60_000);
    await h!.schedules!.settle();
    const answers = () => h!.fake.shown((text) => /After the restart\./.test(text));
    await until(() => answers().length > 0, "the slot's answer after the restart");
    expect(answers()).toHaveLength(1);
  });

  it("takes the commands in the Messages tab, and runs the slot there", async () => {
    const clock = await start([say("Stretch now.")]);
    ts += 1;
    await postEvent(
      h!.eventsUrl,
      directMessageEvent({ user: "U0ALICE", text: "schedule in 20 minutes: remind me to stretch", ts: `${ts}.000100` }),
    );
    await until(() => /Scheduled sch_/.test(privateTo("U0ALICE") + dmText()), `the reply in the DM:\n${dmText()}`);
    clock.advance(20 * 60_000);
    await h!.schedules!.settle();
    await until(() => /Stretch now\./.test(dmText()), "the slot's answer in the DM");
    expect(
      ok("chat.postMessage").filter((call) => call.args.channel === "D0ALICE" && /⏰ Schedule sch_/.test(String(call.args.text))),
    ).toHaveLength(1);
  });

  it("lets only the owner or an admin cancel; an admin's list names owner and channel, privately", async () => {
    await start();
    const thread = await mention("U0ALICE", "schedule every 2 hours UTC: check the deploy");
    const id = idIn(await replyIn(thread, /Scheduled sch_/));
    const bobs = await mention("U0BOB", `unschedule ${id}`);
    await replyIn(bobs, new RegExp(`${id} belongs to U0ALICE; only they or an admin can change it\\.`));
    await mention(ADMIN, "schedules");
    await until(() => /All 1 schedules:/.test(privateTo(ADMIN)), `the admin's list in:\n${privateTo(ADMIN)}`);
    expect(privateTo(ADMIN)).toMatch(new RegExp(`${id} · \`every 2 hours UTC\` · active · next .* · owner U0ALICE · channel C0GENERAL`));
    const alices = await mention("U0ALICE", `unschedule ${id}`);
    await replyIn(alices, new RegExp(`Cancelled ${id}`));
    const again = await mention("U0ALICE", `resume ${id}`);
    await replyIn(again, new RegExp(`${id} has ended already|${id} is cancelled`));
  });

  it("an owner blocked after making it: at fire time the schedule pauses, the owner is told privately, the model is not asked", async () => {
    let settings = settingsOf({ access: { admins: { slack: [ADMIN] } } });
    const settingsSource = { current: () => settings, path: undefined, onReload: () => undefined, close: () => undefined };
    const clock = manualClock(Date.now());
    const model = new ScriptedModel([say("must not run")]);
    h = await startSlackHarness({ model, schedules: { clock }, settingsSource });
    const thread = await mention("U0ALICE", "schedule in 20 minutes: summarise #releases");
    const id = idIn(await replyIn(thread, /Scheduled sch_/));
    // The settings file changed since: the owner is blocked now.
    settings = settingsOf({ access: { admins: { slack: [ADMIN] }, block: { users: ["U0ALICE"] } } });
    clock.advance(20 * 60_000);
    await h!.schedules!.settle();
    await until(() => new RegExp(`Your schedule ${id}`).test(privateTo("U0ALICE")), `the owner told privately:\n${privateTo("U0ALICE")}`);
    expect(privateTo("U0ALICE")).toMatch(/is paused: /);
    expect(model.requests).toHaveLength(0);
    expect(ok("chat.postMessage").filter((call) => call.args.channel === "C0GENERAL" && call.args.thread_ts === undefined)).toHaveLength(0);
  });

  it("pauses a schedule whose owner left the workspace, and tells them by DM; nothing runs", async () => {
    const clock = await start([say("must not run")]);
    const thread = await mention("U0ALICE", "schedule in 20 minutes: summarise #releases");
    const id = idIn(await replyIn(thread, /Scheduled sch_/));
    h!.fake.setUser("U0ALICE", { team_id: TEAM_ID, deleted: true });
    clock.advance(20 * 60_000);
    await h!.schedules!.settle();
    await until(() => new RegExp(`Your schedule ${id}`).test(privateTo("U0ALICE")), "the owner's DM");
    expect(privateTo("U0ALICE")).toMatch(/is paused: its owner left the workspace/);
    expect(ok("chat.postMessage").filter((call) => call.args.channel === "C0GENERAL" && call.args.thread_ts === undefined)).toHaveLength(0);
  });

  it("pauses a schedule when the bot is no longer in its channel, and tells the owner by DM", async () => {
    const clock = await start([say("must not run")]);
    const thread = await mention("U0ALICE", "schedule in 20 minutes: summarise #releases");
    const id = idIn(await replyIn(thread, /Scheduled sch_/));
    h!.fake.leaveChannel("C0GENERAL");
    clock.advance(20 * 60_000);
    await h!.schedules!.settle();
    await until(() => new RegExp(`Your schedule ${id}`).test(privateTo("U0ALICE")), "the owner's DM");
    expect(privateTo("U0ALICE")).toMatch(/is paused: the bot is no longer in its channel\. Resume it with `resume sch_/);
    expect(
      h!.fake.callsTo("chat.postMessage").filter((call) => call.args.channel === "C0GENERAL" && call.args.thread_ts === undefined),
    ).toEqual([]);
  });

  it("answers `usage` to admins only, privately, with this channel's and the workspace's tokens and cost", async () => {
    await start([]);
    const entry = { at: Date.now(), surface: "slack", workspace: TEAM_ID, person: "U0ALICE", model: "gpt-4o-mini", runs: 1 };
    await addUsage(h!.store, { ...entry, channel: "C0GENERAL", usage: { prompt: 1_000_000, completion: 0, cached: 0 } });
    await addUsage(h!.store, { ...entry, channel: "C0RANDOM", usage: { prompt: 2_000_000, completion: 0, cached: 0 } });
    await mention("U0ALICE", "usage");
    await until(() => /Only the bot's admins can see usage and cost\./.test(privateTo("U0ALICE")), "the refusal");
    await mention(ADMIN, "usage");
    await until(() => /Usage \(UTC\)/.test(privateTo(ADMIN)), "the admin's usage");
    const text = privateTo(ADMIN);
    expect(text).toMatch(/• This channel today: 1,000,000 tokens, 1 run, \$0\.15/);
    expect(text).toMatch(/• The workspace this month: 3,000,000 tokens, 2 runs, \$0\.45/);
    expect(ok("chat.postMessage").filter((call) => call.args.channel === "C0GENERAL" && /Usage/.test(String(call.args.text)))).toEqual([]);
  });
});

const dmText = () =>
  h!.fake
    .shown((_, message) => message.channel === "D0ALICE")
    .map(shownText)
    .join("\n");

/** The value of the approve button, wherever it sits in the blocks. */
/** The approval request a slot's run posted under its root message, and a click on its approve button as someone. */
async function approvalInSlot(madeIn: string) {
  const asking = () => ok("chat.postMessage").find((call) => JSON.stringify(call.args.blocks ?? []).includes(APPROVE_ACTION));
  await until(() => asking() !== undefined, "the approval request");
  const root = String(asking()!.args.thread_ts);
  expect(root).not.toBe(madeIn);
  const request = h!.fake
    .threadMessages("C0GENERAL", root)
    .find((message) => JSON.stringify(message.blocks ?? []).includes(APPROVE_ACTION))!;
  const click = (user: string) => postInteraction(h!.eventsUrl, clickOnMessage(request, { user, actionId: APPROVE_ACTION }));
  return { root, click };
}
