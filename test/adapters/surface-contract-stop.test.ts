// The contract every surface keeps for Stop, written once and run against Slack (Bolt over HTTP,
// fake Slack), Discord (discord.js over the fake gateway and REST) and the console (Ctrl-C, as a
// terminal): the requester's Stop ends a run whose model call hangs at once, with the summary and
// who stopped it, and the button goes; an approver may stop anyone's run; anyone else is told
// privately who can, and nothing stops. The console has one person and no buttons: the scenarios
// that need another person run on the chat platforms. Where each platform puts the button is
// tested in its folder.
import { afterEach, describe, expect, it } from "vitest";
import { say } from "../support/model-scripted.js";
import { consoleDriver, discordDriver, seen, slackDriver, type Session } from "../support/surface-drivers.js";

let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

describe.each([slackDriver, discordDriver, consoleDriver])("the $name surface", (driver) => {
  const shown = () => session!.publicText();
  const stuckRun = async () => {
    session = await driver.start({ script: [say("never")], stuck: true });
    await session.ask("alice", "think forever");
    await session.waitForButton("stop");
    return session;
  };

  it("stops a run whose model call hangs for its requester within 2 s, saying who stopped it, and the button goes", async () => {
    const run = await stuckRun();
    const clicked = performance.now();
    await run.click("alice", "stop");
    await seen(shown, new RegExp(`Stopped by ${run.nameOf("alice")}\\.`));
    expect(performance.now() - clicked).toBeLessThan(2_000);
    expect(run.shows("stop")).toBe(false);
    expect(shown()).not.toMatch(/\bnever\b/);
    expect(run.privateText("alice")).not.toMatch(/can stop this run/);
  });

  it.runIf(driver.people)("tells anyone else privately that only the requester or an approver can stop it, and nothing stops", async () => {
    const run = await stuckRun();
    await run.click("bob", "stop");
    await seen(() => run.privateText("bob"), /or an approver can stop this run\./);
    expect(run.privateText("bob")).toContain(`Only ${run.mention("alice")} or an approver can stop this run.`);
    expect(shown()).not.toMatch(/Stopped by/);
    expect(run.shows("stop")).toBe(true);
    expect(run.privateText("alice")).not.toMatch(/can stop this run/);
    await run.click("alice", "stop");
    await seen(shown, new RegExp(`Stopped by ${run.nameOf("alice")}\\.`));
  });

  it.runIf(driver.people)("lets an approver stop someone else's run", async () => {
    const run = await stuckRun();
    await run.click("approver", "stop");
    await seen(shown, new RegExp(`Stopped by ${run.nameOf("approver")}\\.`));
    expect(run.privateText("approver")).not.toMatch(/can stop this run/);
    expect(shown()).not.toContain(`Stopped by ${run.nameOf("alice")}`);
    expect(run.shows("stop")).toBe(false);
  });
});
