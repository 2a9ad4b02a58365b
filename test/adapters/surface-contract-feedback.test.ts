// The contract every surface with votes keeps for 👍 / 👎, written once and run against Slack
// (Bolt over HTTP, fake Slack) and Discord (discord.js over the fake gateway and REST): an answer
// carries the buttons; a vote is thanked privately and kept with the run, the conversation, the
// person and how the run ended; the feedback command lists the votes for approvers. The console
// has no votes. How each platform links a vote to its message, and Slack's comment form, are
// tested in their folders.
import { afterEach, describe, expect, it } from "vitest";
import { call, say, type ScriptStep } from "../support/model-scripted.js";
import { discordDriver, seen, slackDriver, type Session } from "../support/surface-drivers.js";
import { until } from "../support/until.js";

let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

/** The same calculator call again and again, until the repeat guard stops the run; its summary when no tools are offered. */
const looping: ScriptStep = (request) => (request.tools.length === 0 ? say("Summary: stuck.") : call("calculator", { expression: "1+1" }));

describe.each([slackDriver, discordDriver])("the $name surface", (driver) => {
  it("thanks a vote privately and keeps it with the run, the conversation, the person and how the run ended", async () => {
    session = await driver.start({ script: [say("Here you are.")] });
    await session.ask("alice", "help me");
    await session.click("alice", "up");
    await seen(() => session!.privateText("alice"), /Thanks for the feedback\./);
    expect(await session.service.feedback.totals()).toEqual({ up: 1, down: 0 });
    expect(session.privateText("bob")).not.toMatch(/Thanks for the feedback/);
    const [vote] = await session.service.feedback.recent(5);
    expect(vote).toMatchObject({ surface: driver.name, person: { id: session.idOf("alice") }, rating: "up", guard: "none" });
    expect(vote!.runId.length).toBeGreaterThan(0);
    expect(vote!.conversationKey.startsWith(`${driver.name}:`)).toBe(true);
    expect(vote!.link).toMatch(/^https:\/\//);
  });

  it("keeps a 👎 with the guard that stopped the run", async () => {
    session = await driver.start({ script: Array.from({ length: 12 }, () => looping) });
    await session.ask("alice", "add one and one");
    await session.click("bob", "down");
    await until(async () => (await session!.service.feedback.recent(5)).length > 0, "the 👎 kept");
    const [vote] = await session.service.feedback.recent(5);
    expect(vote).toMatchObject({ person: { id: session.idOf("bob") }, rating: "down", guard: "repeat" });
    expect(await session.service.feedback.totals()).toEqual({ up: 0, down: 1 });
  });

  it("lists the votes for an approver, who voted and how the run ended, and refuses anyone else", async () => {
    session = await driver.start({ script: [say("Here you are.")] });
    await session.ask("alice", "help me");
    await session.click("alice", "up");
    await seen(() => session!.privateText("alice"), /Thanks for the feedback\./);
    await session.command("approver", "feedback");
    await seen(() => session!.privateText("approver"), /Feedback so far/);
    expect(session.privateText("approver")).toContain("Feedback so far: 👍 1 · 👎 0.");
    expect(session.privateText("approver")).toMatch(new RegExp(`👍 ${session.mention("alice")} · .* · answered`));
    expect(session.publicText()).not.toContain("Feedback so far");
    await session.command("alice", "feedback");
    await seen(() => session!.privateText("alice"), /Only approvers and admins can see the feedback\./);
    expect(session.privateText("alice")).not.toContain("Feedback so far");
  });
});
