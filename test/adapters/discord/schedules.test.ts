// Schedules through the real Discord surface (discord.js over the fake gateway and REST): made
// with `/schedule when: task:` (and by mention), answered privately on the command's own reply;
// a slot fires (only the schedules' clock moves) and posts a root message in the channel with
// the run's answer replying to it; an owner who left the server pauses it and is told by DM.
import { ChannelType } from "discord.js";
import { afterEach, describe, expect, it } from "vitest";
import { createAuditLog } from "../../../src/governance/audit-log.js";
import { call, type ScriptStep, say } from "../../support/model-scripted.js";
import { startDiscordHarness, type DiscordHarness } from "../../support/discord-harness.js";
import { nextSnowflake } from "../../support/fake-discord-payloads.js";
import { settingsOf } from "../../support/governance-harness.js";
import { until } from "../../support/until.js";
import { manualClock, type ManualClock } from "../../support/schedule-harness.js";

let h: DiscordHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(script: readonly ScriptStep[] = [say("Releases: all green.")]): Promise<ManualClock> {
  const clock = manualClock(Date.now());
  h = await startDiscordHarness({
    script,
    schedules: { clock },
    settings: ({ dave }) => settingsOf({ access: { admins: { discord: [dave.id] } } }),
  });
  return clock;
}

/** What the command's own (ephemeral) reply says, once it says something. */
async function replyTo(token: string, expected: RegExp): Promise<string> {
  const text = () =>
    h!.fake.calls
      .filter((call) => call.method === "PATCH" && call.path.includes(`/${token}/messages/@original`) && call.status < 300)
      .map((call) => String(call.body?.content ?? ""))
      .join("\n");
  await until(() => expected.test(text()), `${expected} in the reply:\n${text()}`);
  return text();
}

const general = () => h!.fake.messagesIn(h!.fake.general.id);
const idIn = (text: string) => /sch_[a-z0-9]{8}/.exec(text)![0];

describe("schedules on Discord", () => {
  it("makes one with /schedule when: task:, showing its id, the next three times with weekday and zone, and where results go", async () => {
    await start();
    const { token } = h!.fake.slashCommand("schedule", h!.alice, {
      values: { when: "every monday at 10:30 Europe/Berlin", task: "post the open incidents" },
    });
    const reply = await replyTo(token, /Scheduled sch_/);
    expect(reply).toMatch(/Scheduled sch_[a-z0-9]{8}: `every monday at 10:30 Europe\/Berlin`/);
    expect(reply.match(/\d{4}-\d\d-\d\d 10:30 Europe\/Berlin \(Mon\)/g)).toHaveLength(3);
    expect(reply).toMatch(/Results will be posted in this channel, each run in a thread of its own\./);
  });

  it("makes one from a cron expression with its timezone, and prints the times right across daylight saving", async () => {
    await start();
    const { token } = h!.fake.slashCommand("schedule", h!.alice, {
      values: { when: "cron 0 9 * * 0 Europe/Berlin", task: "post the weekly digest" },
    });
    const reply = await replyTo(token, /Scheduled sch_/);
    const times = reply.match(/\d{4}-\d\d-\d\d 09:00 Europe\/Berlin \(Sun\)/g) ?? [];
    expect(times).toHaveLength(3);
  });

  it("a slot's run that answers [SILENT] posts nothing: no root message, no answer", async () => {
    const clock = await start([say("  [SILENT]\n")]);
    const { token } = h!.fake.slashCommand("schedule", h!.alice, { values: { when: "in 20 minutes", task: "report new incidents" } });
    await replyTo(token, /Scheduled sch_/);
    clock.advance(20 * 60_000);
    await h!.schedules!.settle();
    const audit = createAuditLog(h!.store);
    await until(async () => (await audit.list({ limit: 5 })).some((entry) => entry.kind === "slot_silent"), "the slot recorded as silent");
    expect(h!.model.requests).toHaveLength(1);
    // Only the reply to /schedule is in the channel: no root, no "working", no answer.
    expect(general().map((message) => message.content)).toEqual([expect.stringMatching(/^Scheduled sch_/)]);
  });

  it("a slot's run that made a tool call and then answers [SILENT]: its progress ends in one line, nothing is left working", async () => {
    const clock = await start([call("calculator", { expression: "1+1" }), say("[SILENT]")]);
    const { token } = h!.fake.slashCommand("schedule", h!.alice, { values: { when: "in 20 minutes", task: "count the incidents" } });
    await replyTo(token, /Scheduled sch_/);
    clock.advance(20 * 60_000);
    await h!.schedules!.settle();
    const audit = createAuditLog(h!.store);
    await until(async () => (await audit.list({ limit: 5 })).some((entry) => entry.kind === "slot_silent"), "the slot recorded as silent");
    const everywhere = () => [...h!.fake.messages.values()].map((message) => message.content);
    await until(() => !everywhere().some((content) => content.startsWith("⏳")), `no message left working:\n${everywhere().join("\n")}`);
    // Only the trace under it tells the step that answered [SILENT].
    expect(everywhere().filter((content) => content.includes("SILENT") && !content.startsWith("Step 1"))).toEqual([]);
    expect(everywhere().filter((content) => content.startsWith("Nothing to report this time."))).toHaveLength(1);
  });

  it("registers /schedule with required when and task options, and the id commands with an id", async () => {
    const { COMMANDS } = await import("../../../src/adapters/discord/command-definitions.js");
    const options = (name: string) =>
      (COMMANDS.find((command) => command.name === name) as { options?: Array<{ name: string; required?: boolean }> }).options ?? [];
    expect(options("schedule").map((option) => [option.name, option.required])).toEqual([
      ["when", true],
      ["task", true],
    ]);
    for (const name of ["unschedule", "pause", "resume"]) expect(options(name).map((option) => option.name)).toEqual(["id"]);
    expect(options("schedules")).toEqual([]);
  });

  it("refuses a phrase with no timezone in one line (Discord has no profile timezone)", async () => {
    await start();
    const { token } = h!.fake.slashCommand("schedule", h!.alice, { values: { when: "every day at 9:00", task: "water the plants" } });
    const reply = await replyTo(token, /Which timezone\?/);
    expect(reply).not.toMatch(/Scheduled/);
  });

  it("fires a slot: a root message in the channel, the answer replying to it, once", async () => {
    const clock = await start();
    const { token } = h!.fake.slashCommand("schedule", h!.alice, { values: { when: "in 20 minutes", task: "summarise #releases" } });
    const id = idIn(await replyTo(token, /Scheduled sch_/));
    clock.advance(20 * 60_000);
    await h!.schedules!.settle();
    const root = () => general().find((message) => message.content.startsWith(`⏰ Schedule ${id} of alice, for `));
    const answer = () => general().find((message) => message.content.includes("Releases: all green."));
    await until(() => answer() !== undefined, "the slot's answer");
    expect(root()).toBeDefined();
    expect(answer()!.message_reference?.message_id).toBe(root()!.id);
    expect(general().filter((message) => message.content.startsWith("⏰ Schedule"))).toHaveLength(1);
  });

  it("made in a thread, the owner chose that thread: the slot's answer is posted there, with no root message in the channel", async () => {
    const clock = await start();
    const thread = h!.fake.addChannel({
      id: nextSnowflake(),
      name: "releases chat",
      type: ChannelType.PublicThread,
      guildId: h!.fake.guild.id,
      parentId: h!.fake.general.id,
    });
    const { token } = h!.fake.slashCommand("schedule", h!.alice, {
      channel: thread,
      values: { when: "in 20 minutes", task: "summarise #releases" },
    });
    expect(await replyTo(token, /Scheduled sch_/)).toMatch(/Results will be posted in this thread\./);
    clock.advance(20 * 60_000);
    await h!.schedules!.settle();
    const inThread = () => h!.fake.messagesIn(thread.id).find((message) => message.content.includes("Releases: all green."));
    await until(() => inThread() !== undefined, "the slot's answer in the thread");
    expect(general().filter((message) => message.content.startsWith("⏰ Schedule"))).toHaveLength(0);
  });

  it("a write in a slot's run waits for its owner's click; anyone else's click is refused", async () => {
    const clock = await start([
      () => call("post_message", { channel: `<#${h!.fake.random.id}>`, text: "Deploy at 5pm." }, "call_post"),
      say("Posted the notice."),
    ]);
    const random = `<#${h!.fake.random.id}>`;
    const { token } = h!.fake.slashCommand("schedule", h!.alice, {
      values: { when: "in 20 minutes", task: `announce the deploy in ${random}` },
    });
    await replyTo(token, /Scheduled sch_/);
    clock.advance(20 * 60_000);
    await h!.schedules!.settle();
    const customIdOf = (message: { components?: unknown }) =>
      JSON.stringify(message.components ?? []).match(/"custom_id":"(appr:a:[^"]*)"/)?.[1];
    const asking = () => general().find((message) => customIdOf(message) !== undefined);
    await until(() => asking() !== undefined, "the approval request");
    const request = asking()!;
    const writes = () =>
      h!.fake.callsTo("POST", new RegExp(`^/channels/${h!.fake.random.id}/messages$`)).filter((c) => c.status < 300).length;
    const bobs = h!.fake.clickButton(request.id, customIdOf(request)!, h!.bob);
    const bobSaw = () =>
      h!.fake.calls
        .filter((c) => c.path.includes(`/${bobs.token}`) && c.status < 300)
        .map((c) => String(c.body?.content ?? ""))
        .join("\n");
    await until(() => /You can't decide this one\./.test(bobSaw()), `bob's refusal in:\n${bobSaw()}`);
    expect(writes()).toBe(0);
    h!.fake.clickButton(request.id, customIdOf(request)!, h!.alice);
    await until(() => general().some((message) => message.content.includes("Posted the notice.")), "the answer after the approval");
    expect(writes()).toBe(1);
  });

  it("cancels for the owner and refuses anyone else; resume by id", async () => {
    await start();
    const made = h!.fake.slashCommand("schedule", h!.alice, { values: { when: "every 2 hours UTC", task: "check the deploy" } });
    const id = idIn(await replyTo(made.token, /Scheduled sch_/));
    const bobs = h!.fake.slashCommand("unschedule", h!.bob, { values: { id } });
    await replyTo(bobs.token, new RegExp(`${id} belongs to alice; only they or an admin can change it\\.`));
    const paused = h!.fake.slashCommand("pause", h!.alice, { values: { id } });
    await replyTo(paused.token, new RegExp(`Paused ${id}`));
    const resumed = h!.fake.slashCommand("resume", h!.alice, { values: { id } });
    await replyTo(resumed.token, new RegExp(`Resumed ${id}: next \\d{4}-\\d\\d-\\d\\d \\d\\d:00 UTC`));
    const admins = h!.fake.slashCommand("schedules", h!.dave);
    await replyTo(admins.token, new RegExp(`All 1 schedules:\\n• ${id} .* · owner alice · channel ${h!.fake.general.id}`));
    const cancelled = h!.fake.slashCommand("unschedule", h!.dave, { values: { id } });
    await replyTo(cancelled.token, new RegExp(`Cancelled ${id}`));
  });

  it("pauses a schedule whose owner left the server; Discord lets no DM reach them, so its channel is told; nothing runs", async () => {
    const clock = await start([say("must not run")]);
    const { token } = h!.fake.slashCommand("schedule", h!.alice, { values: { when: "in 20 minutes", task: "summarise #releases" } });
    const id = idIn(await replyTo(token, /Scheduled sch_/));
    h!.fake.removeMember(h!.alice);
    clock.advance(20 * 60_000);
    await h!.schedules!.settle();
    const listed = h!.fake.slashCommand("schedules", h!.dave);
    await replyTo(listed.token, new RegExp(`${id} · \`in 20 minutes\` · paused \\(its owner left the server\\)`));
    await until(
      () => h!.logs.some((line) => line.msg === "could not tell a schedule's owner privately" && line.scheduleId === id),
      "the warning that the owner could not be told",
    );
    await until(
      () =>
        general().some((message) =>
          message.content.startsWith(
            `Schedule ${id} of alice (\`in 20 minutes\`: summarise #releases) is paused: its owner left the server.`,
          ),
        ),
      "the channel told why the schedule went quiet",
    );
    expect(general().filter((message) => message.content.startsWith("⏰ Schedule"))).toEqual([]);
  });
});
