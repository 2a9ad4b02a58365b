// The contract every surface keeps when an admin edits the settings file while a write waits for
// its approval (Slack, Discord and the console, through their real libraries, the file re-read as
// a bot process re-reads it): access is asked again at every decision, as a new question would be.
// A decider refused now is told privately and nothing changes; a run whose requester or channel
// lost access ends with its summary naming why, its write not made, also when the decision was
// claimed before a restart; Stop and a vote from a person refused now change nothing either.
import { afterEach, describe, expect, it } from "vitest";
import { call, say } from "../support/model-scripted.js";
import { consoleDriver, discordDriver, seen, slackDriver, type Access, type Session } from "../support/surface-drivers.js";

let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

/** Asks to post a notice where the requester may (the session names the channel once it has started). */
const postNotice = () => call("post_message", { channel: session!.otherChannel, text: "Deploy starts at 5pm." }, "call_post");
const posting = [postNotice, say("Done, it is posted.")];
/** What the model says when a run ends without its write: the summary the person reads above the stop's line. */
const summarising = [postNotice, say("I could not post the notice.")];
const LOST_ACCESS = /I could not post the notice\.[\s\S]*Stopped: you no longer have access here\./;
const NOT_ALLOWED = /not allowed to use this bot/;

describe.each([slackDriver, discordDriver, consoleDriver])("the $name surface", (driver) => {
  const waitingWrite = async (script = posting) => {
    session = await driver.start({ script, allowed: ["alice", "approver", "admin"] });
    await session.ask("alice", "announce the deploy");
    await seen(() => session!.publicText(), /post_message/);
  };

  it.each<[string, Access]>([
    ["blocked", { blocked: ["alice"], allowed: ["alice", "approver", "admin"] }],
    ["taken off the allow list", { allowed: ["approver"] }],
  ])("refuses the requester's own decision once they are %s, privately, and writes nothing", async (_change, access) => {
    await waitingWrite();
    await session!.govern(access);
    await session!.click("alice", "approve");
    await seen(() => session!.privateText("alice"), NOT_ALLOWED);
    expect(session!.writes()).toBe(0);
    expect(session!.publicText()).not.toMatch(/Done, it is posted/);
    if (!driver.people) return;
    // Nothing was claimed: once the admin lets them back, their decision runs the write.
    await session!.govern({ allowed: ["alice", "approver", "admin"] });
    await session!.click("alice", "approve");
    await seen(() => session!.publicText(), /Done, it is posted\./);
    expect(session!.writes()).toBe(1);
  });

  it.runIf(driver.people).each<[string, Access]>([
    ["blocked", { blocked: ["alice"], allowed: ["alice", "approver", "admin"] }],
    ["taken off the allow list", { allowed: ["approver", "admin"] }],
  ])("ends the run of a requester %s meanwhile when an approver approves it: the summary says why", async (_change, access) => {
    await waitingWrite(summarising);
    await session!.govern(access);
    await session!.click("approver", "approve");
    await seen(() => session!.publicText(), LOST_ACCESS);
    expect(session!.writes()).toBe(0);
    expect(session!.privateText("approver")).not.toMatch(NOT_ALLOWED);
  });

  it.runIf(driver.people)("tells a decider blocked meanwhile privately, and still takes the requester's decision", async () => {
    await waitingWrite();
    await session!.govern({ blocked: ["approver"], allowed: ["alice", "approver", "admin"] });
    await session!.click("approver", "approve");
    await seen(() => session!.privateText("approver"), NOT_ALLOWED);
    expect(session!.writes()).toBe(0);
    await session!.click("alice", "approve");
    await seen(() => session!.publicText(), /Done, it is posted\./);
    expect(session!.writes()).toBe(1);
  });

  it.runIf(driver.people)("refuses a click in a channel blocked meanwhile, and an admin's decision ends the run with why", async () => {
    await waitingWrite(summarising);
    await session!.govern({ channelBlocked: true, allowed: ["alice", "approver", "admin"] });
    await session!.click("alice", "approve");
    await seen(() => session!.privateText("alice"), /I don't answer in this channel/);
    expect(session!.writes()).toBe(0);
    await session!.click("admin", "approve");
    await seen(() => session!.publicText(), /I could not post the notice\.[\s\S]*Stopped: I no longer answer in this channel\./);
    expect(session!.writes()).toBe(0);
  });

  it("does not make the write of a decision claimed before a restart once its requester is blocked", async () => {
    session = await driver.start({ script: [postNotice], resumesRefused: Number.POSITIVE_INFINITY });
    await session.ask("alice", "announce the deploy");
    await session.click("alice", "approve");
    // Claimed, but its resume could not be queued: it waits for the next start.
    await seen(() => session!.privateText("alice"), /Your decision is recorded/);
    await session.govern({ blocked: ["alice"] });
    await session.restart([say("I could not post the notice.")]);
    await seen(() => session!.publicText(), LOST_ACCESS);
    expect(session.writes()).toBe(0);
  });

  it("refuses the Stop of a requester blocked meanwhile privately, and the run goes on", async () => {
    session = await driver.start({ script: [say("never")], stuck: true });
    await session.ask("alice", "think forever");
    await session.govern({ blocked: ["alice"] });
    await session.click("alice", "stop");
    await seen(() => session!.privateText("alice"), NOT_ALLOWED);
    expect(session.publicText()).not.toMatch(/Stopped by/);
    // The console's one person is its admin too, and blocked now.
    if (!driver.people) return;
    await session.click("admin", "stop");
    await seen(() => session!.publicText(), /Stopped by/);
  });

  it.runIf(driver.people)("refuses the vote of a person blocked meanwhile privately, and keeps none", async () => {
    session = await driver.start({ script: [say("Here you are.")] });
    await session.ask("alice", "help me");
    await seen(() => session!.publicText(), /Here you are\./);
    await session.govern({ blocked: ["alice"] });
    await session.click("alice", "up");
    await seen(() => session!.privateText("alice"), NOT_ALLOWED);
    expect(session.privateText("alice")).not.toMatch(/Thanks for the feedback/);
    expect(await session.service.feedback.totals()).toEqual({ up: 0, down: 0 });
  });
});
