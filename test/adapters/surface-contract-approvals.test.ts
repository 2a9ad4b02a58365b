// The contract every surface keeps for a write that waits for a person, written once and run
// against Slack (Bolt over HTTP, fake Slack), Discord (discord.js over the fake gateway and REST)
// and the console (its streams, as a terminal): the write shows with its arguments and runs only
// once its requester (or an approver) approves it, once however often it is clicked, and not at
// all when denied; the card then says who decided and offers no button; anyone else is told
// privately who can decide; a decision the work queue can't take at once is recorded and goes on
// by itself; an approval nobody decided in time, or clicked too late, shows as expired with the
// run's summary; and it all survives a restart. The console has one person and no cards: the
// scenarios that need another person or a card run on the chat platforms. Each platform's own
// part (how the card is drawn, how a click reaches the bot) is tested in its folder.
import { afterEach, describe, expect, it } from "vitest";
import { call, say } from "../support/model-scripted.js";
import { consoleDriver, discordDriver, seen, slackDriver, type Session } from "../support/surface-drivers.js";

let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

const NOTICE = "Deploy starts at 5pm.";
/** Asks to post the notice where the requester may (the session names the channel once it has started). */
const postNotice = () => call("post_message", { channel: session!.otherChannel, text: NOTICE }, "call_post");
const posting = [postNotice, say("Done, it is posted.")];
const APPROVAL_WINDOW_MS = 60_000;
/** Each surface words an expired approval its own way; all say this. */
const EXPIRED = /in time, so it did not run\./;
/** What a person reads, one space between words (the console wraps its lines). */
const flat = (text: string) => text.replace(/\s+/g, " ");

describe.each([slackDriver, discordDriver, consoleDriver])("the $name surface", (driver) => {
  const shown = () => session!.publicText();
  /** A write waiting for its approval, on a clock then moved past the approval's time; the model's summary says so. */
  const waitingPastItsTime = async () => {
    let now = Date.now();
    session = await driver.start({
      script: [postNotice, say("Nobody approved the notice in time.")],
      clock: () => now,
      approvalWindowMs: APPROVAL_WINDOW_MS,
    });
    await session.ask("alice", "announce the deploy");
    await session.waitForButton("approve");
    now += APPROVAL_WINDOW_MS + 1_000;
    return session;
  };

  it("shows the write with its arguments, and runs it once the requester approves it", async () => {
    session = await driver.start({ script: posting });
    await session.ask("alice", "announce the deploy");
    await session.waitForButton("approve");
    expect(shown()).toContain("post_message");
    expect(shown()).toContain(NOTICE);
    expect(session.writes()).toBe(0);
    await session.click("alice", "approve");
    await seen(shown, /Done, it is posted\./);
    expect(session.writes()).toBe(1);
    expect(session.privateText("alice")).not.toMatch(/can't decide|recorded/);
    if (!driver.people) return;
    expect(shown()).toContain(`Approved by ${session.mention("alice")}`);
    expect(session.shows("approve")).toBe(false);
  });

  it("runs nothing when the requester denies the write, and the run goes on", async () => {
    session = await driver.start({ script: [postNotice, say("Understood, I did not post it.")] });
    await session.ask("alice", "announce the deploy");
    await session.click("alice", "deny");
    await seen(shown, /Understood, I did not post it\./);
    expect(session.writes()).toBe(0);
    if (!driver.people) return;
    expect(shown()).toContain(`Denied by ${session.mention("alice")}`);
    expect(shown()).not.toContain("Approved by");
    expect(session.shows("deny")).toBe(false);
  });

  it.runIf(driver.people)("tells another person privately they can't decide, naming who can, and runs nothing for them", async () => {
    session = await driver.start({ script: posting });
    await session.ask("alice", "announce the deploy");
    await session.click("bob", "approve");
    await seen(() => session!.privateText("bob"), /You can't decide this one\./);
    expect(session.privateText("bob")).toContain(`You can't decide this one. Only ${session.mention("alice")}`);
    expect(session.privateText("bob")).toContain(session.mention("approver"));
    expect(session.writes()).toBe(0);
    expect(session.shows("approve")).toBe(true);
    expect(session.privateText("alice")).not.toMatch(/can't decide/);
    await session.click("alice", "deny");
    await seen(shown, /Denied by/);
    expect(shown()).toContain(`Denied by ${session.mention("alice")}`);
    expect(session.writes()).toBe(0);
  });

  it.runIf(driver.people)("lets an approver decide for the requester", async () => {
    session = await driver.start({ script: posting });
    await session.ask("alice", "announce the deploy");
    await session.click("approver", "approve");
    await seen(shown, /Done, it is posted\./);
    expect(session.writes()).toBe(1);
    expect(shown()).toContain(`Approved by ${session.mention("approver")}`);
    expect(session.privateText("approver")).not.toMatch(/can't decide/);
  });

  it.runIf(driver.people)(
    "runs the write once when the button is clicked twice at the same time, and tells the second click who decided",
    async () => {
      session = await driver.start({ script: posting });
      await session.ask("alice", "announce the deploy");
      await session.waitForButton("approve");
      await Promise.all([session.click("alice", "approve"), session.click("alice", "approve")]);
      await seen(shown, /Done, it is posted\./);
      await seen(() => session!.privateText("alice"), /This was already approved by/);
      expect(session.privateText("alice")).toContain(`This was already approved by ${session.mention("alice")}.`);
      expect(session.privateText("alice").split("This was already approved").length - 1).toBe(1);
      expect(shown()).toContain(`Approved by ${session.mention("alice")}`);
      expect(session.writes()).toBe(1);
    },
  );

  it("tells the requester their approval is recorded when the run can't go on at once, and goes on when the queue is back", async () => {
    session = await driver.start({ script: posting, resumesRefused: 6 });
    await session.ask("alice", "announce the deploy");
    await session.click("alice", "approve");
    await seen(() => flat(session!.privateText("alice")), /Your decision is recorded/);
    expect(flat(session.privateText("alice"))).toMatch(/It goes on by itself as soon as it can: no need to click again\./);
    if (driver.people) {
      expect(shown()).toContain(`Approved by ${session.mention("alice")}`);
      expect(session.shows("approve")).toBe(false);
    }
    await seen(shown, /Done, it is posted\./);
    expect(session.refusedResumes()).toBe(6);
    expect(session.writes()).toBe(1);
  });

  it("shows an approval nobody decided in time as expired, with the run's summary, and runs nothing", async () => {
    const waiting = await waitingPastItsTime();
    expect(await waiting.service.sweepExpiredApprovals()).toBe(1);
    await seen(shown, /Nobody approved the notice in time\./);
    expect(shown()).toMatch(EXPIRED);
    expect(waiting.shows("approve")).toBe(false);
    expect(await waiting.service.sweepExpiredApprovals()).toBe(0);
    expect(flat(shown()).split("Nobody approved the notice in time.").length - 1).toBe(1);
    expect(waiting.writes()).toBe(0);
  });

  it.runIf(driver.people)("answers a click after the approval's time with the expiry and the run's summary, and runs nothing", async () => {
    const waiting = await waitingPastItsTime();
    await waiting.click("alice", "approve");
    await seen(shown, /Nobody approved the notice in time\./);
    expect(shown()).toMatch(EXPIRED);
    expect(waiting.shows("approve")).toBe(false);
    expect(waiting.privateText("alice")).not.toMatch(/can't decide|recorded/);
    expect(waiting.writes()).toBe(0);
  });

  it("takes the requester's approval after a restart, and runs the write once", async () => {
    session = await driver.start({ script: [postNotice] });
    await session.ask("alice", "announce the deploy");
    await seen(shown, /post_message/);
    await session.restart([say("Done after the restart.")]);
    await session.click("alice", "approve");
    await seen(shown, /Done after the restart\./);
    expect(session.writes()).toBe(1);
    expect(session.shows("approve")).toBe(false);
  });
});
