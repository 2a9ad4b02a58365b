// startApp in-process: console mode over injected streams, failures as one line, and Slack and
// Discord started together in one process on one store (against their fakes on 127.0.0.1).
import { describe, expect, it } from "vitest";
import { FakeDiscord } from "../support/fake-discord.js";
import { startFakeSlack } from "../support/fake-slack.js";
import { useAppHarness } from "../support/app-harness.js";

const apps = useAppHarness();

const storeUrl = () => apps.storeUrl();

describe("startApp", () => {
  it("with no chat tokens runs the console on the given streams until /quit", async () => {
    const { app, type, shown, waitFor } = await apps.startConsole();
    expect(app.surfaces).toEqual(["console"]);
    type("what is 12*12");
    await waitFor("12*12 = 144", "the answer");
    expect(shown()).toContain("OFFLINE DEMO");
    type("/quit");
    await app.ended;
    await app.stop();
    await app.stop();
    expect(shown()).toMatch(/Bye\.\n$/);
  });

  it("wires the schedule and usage commands into the console: SCHEDULE_DEFAULT_TZ applies, usage is for admins", async () => {
    const { type, shown, waitFor } = await apps.startConsole({ SCHEDULE_DEFAULT_TZ: "Europe/Berlin" });
    type("/schedule every day at 9:00: summarise the log");
    await waitFor(/Scheduled sch_[a-z0-9]{8}/, "the schedule's reply");
    expect(shown().match(/\d{4}-\d\d-\d\d 09:00 Europe\/Berlin \((Mon|Tue|Wed|Thu|Fri|Sat|Sun)\)/g)).toHaveLength(3);
    type("/usage");
    await waitFor("Only the bot's admins can see usage and cost.", "the usage refusal");
  });

  it("stop() ends a console session that is waiting for input", async () => {
    const { app } = await apps.startConsole();
    await app.stop();
    await app.ended;
  });

  it("answers a bad setting with the one line to print, without starting anything", async () => {
    expect(await apps.start({ STORE_URL: storeUrl(), AGENT_MAX_STEPS: "0" })).toEqual({
      kind: "failed",
      message: 'Configuration error: AGENT_MAX_STEPS: expects a whole number from 1 to 100 (got "0")',
    });
    expect(await apps.start({ STORE_URL: "redis://" })).toMatchObject({
      kind: "failed",
      message: expect.stringMatching(/^Configuration error: STORE_URL: /),
    });
  });

  it("starts Slack and Discord together in one process on one store, and stops them", async () => {
    const slack = await startFakeSlack();
    const discord = await FakeDiscord.start();
    try {
      const result = await apps.start({
        STORE_URL: storeUrl(),
        LOG_LEVEL: "silent",
        OPENAI_API_KEY: "demo",
        SLACK_BOT_TOKEN: "xoxb-test-token",
        SLACK_SIGNING_SECRET: "signing-secret",
        SLACK_API_URL: slack.apiUrl,
        PORT: "0",
        DISCORD_TOKEN: discord.token,
        DISCORD_APPLICATION_ID: discord.applicationId,
        DISCORD_API_URL: discord.apiUrl,
      });
      if (result.kind !== "started") throw new Error(result.message);
      expect(result.app.surfaces).toEqual(["slack", "discord"]);
      expect(slack.callsTo("auth.test").length).toBeGreaterThan(0);
      await result.app.stop();
    } finally {
      await slack.close();
      await discord.close();
    }
  });

  it("reports a surface that cannot start as the one line to print", async () => {
    const discord = await FakeDiscord.start();
    try {
      const result = await apps.start({
        STORE_URL: storeUrl(),
        LOG_LEVEL: "silent",
        OPENAI_API_KEY: "demo",
        PORT: "0",
        DISCORD_TOKEN: "not-the-token",
        DISCORD_APPLICATION_ID: discord.applicationId,
        DISCORD_API_URL: discord.apiUrl,
      });
      expect(result).toMatchObject({
        kind: "failed",
        message: expect.stringMatching(/^Configuration error: DISCORD_TOKEN: .*\(got "<hidden>"\)$/),
      });
    } finally {
      await discord.close();
    }
  });
});
