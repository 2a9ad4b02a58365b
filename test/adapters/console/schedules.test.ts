// Schedules in the console (its real streams over the real service): `/schedule <when>: <what>`
// with the phrase's timezone or SCHEDULE_DEFAULT_TZ, never the machine's by itself; a slot that
// fires (only the schedules' clock moves) prints its answer between the person's lines;
// `/schedules`, `/unschedule`, and `/usage` for the console's person (its admin here).
import { afterEach, describe, expect, it } from "vitest";
import { call, ScriptedModel, say } from "../../support/model-scripted.js";
import { noteTool } from "../../support/service-harness.js";
import { startConsole, type ConsoleHarness } from "../../support/console-harness.js";
import { settingsOf } from "../../support/governance-harness.js";
import { manualClock } from "../../support/schedule-harness.js";
import { createDemoModel } from "../../../src/agent/models/model-demo.js";

let term: ConsoleHarness | undefined;
afterEach(async () => {
  await term?.close();
  term = undefined;
});

async function start(options: { script?: Parameters<typeof say>[0][]; env?: Record<string, string>; admin?: boolean } = {}) {
  const clock = manualClock(Date.now());
  term = await startConsole({
    model: new ScriptedModel((options.script ?? ["Nothing new in the log."]).map((text) => say(text))),
    schedules: { clock },
    ...(options.env ? { env: options.env } : {}),
    ...(options.admin ? { settings: settingsOf({ access: { admins: { console: ["console"] } } }) } : {}),
  });
  await term.waitFor("> ");
  return clock;
}

/** A slot fires whose run wants to post a note, then answers `answer`; resolves once the console asks y/N. */
async function slotAsksToPost(answer: string) {
  const clock = manualClock(Date.now());
  const note = noteTool();
  term = await startConsole({
    model: new ScriptedModel([call("post_note", { text: "deploy at 5pm" }), say(answer)]),
    tools: [note.tool],
    schedules: { clock },
  });
  await term.waitFor("> ");
  const from = term.mark();
  term.type("/schedule in 20 minutes: post the deploy note");
  await term.waitFor(/Cancel with[^\n]*\n/, from);
  clock.advance(20 * 60_000);
  await term.schedules!.settle();
  const asked = await term.waitFor("approve? [y/N] ", from);
  return { note, from, asked };
}

const idIn = (text: string) => /sch_[a-z0-9]{8}/.exec(text)![0];

describe("schedules in the console", () => {
  it("makes one from a phrase with its timezone: id, next three times with weekday and zone, where results go", async () => {
    await start();
    const from = term!.mark();
    term!.type("/schedule every weekday at 9:00 Europe/Berlin: summarise the log");
    await term!.waitFor(/Cancel with[^\n]*\n/, from);
    const shown = term!.text().slice(from);
    expect(shown).toMatch(/Scheduled sch_[a-z0-9]{8}: `every weekday at 9:00 Europe\/Berlin`\. Next: /);
    expect(shown.match(/\d{4}-\d\d-\d\d 09:00 Europe\/Berlin \((Mon|Tue|Wed|Thu|Fri)\)/g)).toHaveLength(3);
  });

  it("prints the next three times right across daylight saving's changes in Europe/Berlin", async () => {
    // Friday 26 March 2027: clocks go forward at 02:00 on Sunday the 28th; back at 03:00 on Sunday 31 October.
    const spring = manualClock(Date.UTC(2027, 2, 26, 12));
    term = await startConsole({ model: new ScriptedModel([]), schedules: { clock: spring } });
    await term.waitFor("> ");
    let from = term.mark();
    term.type("/schedule every day at 2:30 Europe/Berlin: check the backups");
    await term.waitFor(/Cancel with[^\n]*\n/, from);
    expect(term.text().slice(from)).toContain(
      "Next: 2027-03-27 02:30 Europe/Berlin (Sat), 2027-03-28 03:00 Europe/Berlin (Sun), 2027-03-29 02:30 Europe/Berlin (Mon).",
    );
    await term.close();
    const autumn = manualClock(Date.UTC(2027, 9, 29, 12));
    term = await startConsole({ model: new ScriptedModel([]), schedules: { clock: autumn } });
    await term.waitFor("> ");
    from = term.mark();
    term.type("/schedule every day at 2:30 Europe/Berlin: check the backups");
    await term.waitFor(/Cancel with[^\n]*\n/, from);
    expect(term.text().slice(from)).toContain(
      "Next: 2027-10-30 02:30 Europe/Berlin (Sat), 2027-10-31 02:30 Europe/Berlin (Sun), 2027-11-01 02:30 Europe/Berlin (Mon).",
    );
  });

  it("never takes the machine's timezone by itself: it only suggests it", async () => {
    await start();
    const from = term!.mark();
    term!.type("/schedule every day at 9:00: summarise the log");
    await term!.waitFor(/Which timezone\?[^\n]*\n/, from);
    expect(term!.text().slice(from)).toMatch(/\(this machine's is Europe\/Lisbon\), or ask an admin to set SCHEDULE_DEFAULT_TZ\./);
    expect(term!.text().slice(from)).not.toMatch(/Scheduled/);
  });

  it("takes SCHEDULE_DEFAULT_TZ when the phrase names none", async () => {
    await start({ env: { SCHEDULE_DEFAULT_TZ: "America/Chicago" } });
    const from = term!.mark();
    term!.type("/schedule cron 0 8 * * 1-5: summarise the log");
    await term!.waitFor(/Cancel with[^\n]*\n/, from);
    expect(
      term!
        .text()
        .slice(from)
        .match(/08:00 America\/Chicago/g),
    ).toHaveLength(3);
  });

  it("answers /schedule without `: ` with the usage line and asks the model nothing", async () => {
    await start({ script: [] });
    const from = term!.mark();
    term!.type("/schedule tomorrow");
    await term!.waitFor("Usage: `/schedule <when>: <what>`", from);
  });

  it("says where the runs show here and how to cancel as typed here: /unschedule, not a channel's threads", async () => {
    await start();
    const from = term!.mark();
    term!.type("/schedule in 20 minutes: summarise the log");
    await term!.waitFor(/Cancel with[^\n]*\n/, from);
    const shown = term!.text().slice(from);
    const id = idIn(shown);
    expect(shown).toContain("Its runs' answers are printed here, between your lines, while the console is open");
    expect(shown).toContain(`Cancel with \`/unschedule ${id}\`.`);
    expect(shown).not.toMatch(/channel|thread/);
    term!.type("/unschedule");
    await term!.waitFor("`/unschedule` expects a schedule id", from);
  });

  it("the offline demo model answers a slot's question and not the note the schedule adds to it", async () => {
    const clock = manualClock(Date.now());
    term = await startConsole({ model: createDemoModel(), schedules: { clock } });
    await term.waitFor("> ");
    const from = term.mark();
    term.type("/schedule in 1 minute: what is 6*7");
    await term.waitFor(/Cancel with[^\n]*\n/, from);
    const id = idIn(term.text().slice(from));
    clock.advance(60_000);
    await term.schedules!.settle();
    await term.waitFor(`⏰ Schedule ${id}: what is 6*7\n`, from);
    await term.waitFor("6*7 = 42", from);
    await term.waitFor(/\n> $/, from);
    expect(term.text().slice(from)).not.toMatch(/could not work out|Cannot parse/);
  });

  it("prints a slot's answer when it fires, between the person's lines, once", async () => {
    const clock = await start({ script: ["The log is quiet."] });
    const from = term!.mark();
    term!.type("/schedule in 20 minutes: summarise the log");
    await term!.waitFor(/Cancel with[^\n]*\n/, from);
    const id = idIn(term!.text().slice(from));
    clock.advance(20 * 60_000);
    await term!.schedules!.settle();
    const end = await term!.waitFor(`⏰ Schedule ${id}: summarise the log\nThe log is quiet.`, from);
    term!.type("/schedules");
    // A one-shot ends after its run: it is no longer listed.
    await term!.waitFor("You have no schedules.", end);
    expect(term!.text().split("The log is quiet.")).toHaveLength(2);
  });

  it("asks a slot's write at the prompt, as its owner is the console's person: y runs it once", async () => {
    const { note, from, asked } = await slotAsksToPost("Posted the note.");
    expect(term!.text().slice(from)).toMatch(/post_note needs your approval before it runs[\s\S]*"text": "deploy at 5pm"/);
    expect(note.posted).toEqual([]);
    term!.type("y");
    await term!.waitFor(/⏰ Schedule sch_[a-z0-9]{8}: post the deploy note\nPosted the note\./, asked);
    expect(note.posted).toEqual(["deploy at 5pm"]);
  });

  it("a slot's write answered anything but y is denied and never runs", async () => {
    const { note, asked } = await slotAsksToPost("Understood, not posted.");
    term!.type("what is 2+2?");
    await term!.waitFor("Understood, not posted.", asked);
    expect(note.posted).toEqual([]);
  });

  it("lists, cancels and tells an unknown id", async () => {
    await start();
    let from = term!.mark();
    term!.type("/schedule every 2 hours UTC: check the deploy");
    await term!.waitFor(/Cancel with[^\n]*\n/, from);
    const id = idIn(term!.text().slice(from));
    from = term!.mark();
    term!.type("/schedules");
    await term!.waitFor(new RegExp(`Your 1 schedule:\\n• ${id} · \`every 2 hours UTC\` · active · next `), from);
    term!.type(`/unschedule ${id}`);
    await term!.waitFor(`Cancelled ${id}: \`every 2 hours UTC\` runs no more.`, from);
    term!.type("/unschedule sch_zzzzzzzz");
    await term!.waitFor("There is no schedule sch_zzzzzzzz.", from);
    term!.type("/unschedule tomorrow");
    await term!.waitFor("`/unschedule` expects a schedule id like sch_ab12cd34", from);
  });

  it("answers /usage to the console's admin, and refuses it to anyone else", async () => {
    await start({ admin: true });
    const from = term!.mark();
    term!.type("/usage");
    await term!.waitFor(/Usage \(UTC\), today \d{4}-\d\d-\d\d and this month:\n• This channel today: 0 tokens/, from);
    await term!.close();
    term = undefined;
    await start();
    const refused = term!.mark();
    term!.type("/usage");
    await term!.waitFor("Only the bot's admins can see usage and cost.", refused);
  });

  it("says so when the process has no schedules (a harness without them), and runs nothing", async () => {
    term = await startConsole({ model: new ScriptedModel([]) });
    await term.waitFor("> ");
    const from = term.mark();
    term.type("/schedule in 20 minutes: summarise the log");
    await term.waitFor("Schedules are not set up in this bot process.", from);
  });
});
