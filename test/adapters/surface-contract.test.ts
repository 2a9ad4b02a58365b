// The contract every surface keeps, written once and run against Slack (Bolt over HTTP, fake
// Slack), Discord (discord.js over the fake gateway and REST) and the console (its streams, as a
// terminal): a question is answered; every command answers, and the guarded ones refuse who they
// must; a blocked person hears why privately and nothing runs. Approvals, Stop, votes and access
// changed while a write waits have their own files (surface-contract-*.test.ts). The console has
// one person: the scenarios that need a second one run on the chat platforms. A difference between
// surfaces is a failing test here, not a drift between copies.
import { afterEach, describe, expect, it } from "vitest";
import { say } from "../support/model-scripted.js";
import { COMMANDS } from "../../src/adapters/core/commands.js";
import { consoleDriver, discordDriver, seen, slackDriver, type Session, type Who } from "../support/surface-drivers.js";

let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

const times = (text: string, phrase: string) => text.split(phrase).length - 1;

/** What each command answers someone it lets in (on a store with nothing remembered, audited or voted yet). */
const ANSWERS: Readonly<Record<string, RegExp>> = {
  memory: /I don't remember anything about this conversation yet/,
  forget: /There was nothing to forget about this conversation/,
  tools: /post_message/,
  audit: /audit/,
  settings: /model: /,
  feedback: /Feedback so far: 👍 0 · 👎 0/,
  usage: /Usage \(UTC\), today \d{4}-\d\d-\d\d and this month:\n• This channel today: 0 tokens/,
  schedule: /Usage: `schedule .*when.*: .*what.*`/,
  schedules: /You have no schedules\.|There are no schedules\./,
  unschedule: /`unschedule` expects a schedule id like sch_ab12cd34/,
  pause: /`pause` expects a schedule id like sch_ab12cd34/,
  resume: /`resume` expects a schedule id like sch_ab12cd34/,
};
/** Who may run each command, for the check that anyone else is refused. */
const GUARDED: Readonly<Record<string, { readonly by: Who; readonly refusal: RegExp }>> = {
  audit: { by: "admin", refusal: /Only the bot's admins can see the audit log/ },
  feedback: { by: "approver", refusal: /Only approvers and admins can see the feedback/ },
  usage: { by: "admin", refusal: /Only the bot's admins can see usage and cost/ },
};

describe.each([slackDriver, discordDriver, consoleDriver])("the $name surface", (driver) => {
  const seenBy = (who: Who, expected: RegExp) => seen(() => `${session!.publicText()}\n${session!.privateText(who)}`, expected);

  it("answers a question", async () => {
    session = await driver.start({ script: [say("Four, as far as I can count.")] });
    await session.ask("alice", "what is 2+2?");
    await seen(() => session!.publicText(), /Four, as far as I can count\./);
  });

  it.each(COMMANDS.map((command) => command.name))("answers the %s command", async (name) => {
    session = await driver.start({ script: [] });
    const guarded = GUARDED[name];
    await session.command(guarded?.by ?? "alice", name);
    await seenBy(guarded?.by ?? "alice", ANSWERS[name]!);
    if (!guarded || !driver.people) return;
    await session.command("bob", name);
    await seen(() => session!.privateText("bob"), guarded.refusal);
  });

  it("refuses a blocked person privately: no answer, no command", async () => {
    session = await driver.start({ script: [say("You should not see this.")], blocked: ["alice"] });
    await session.ask("alice", "hello?");
    await seen(() => session!.privateText("alice"), /not allowed to use this bot/);
    await session.command("alice", "memory");
    await seen(() => String(times(session!.privateText("alice"), "not allowed to use this bot")), /^2$/);
    expect(session.publicText()).not.toMatch(/You should not see this|I don't remember anything/);
  });
});
