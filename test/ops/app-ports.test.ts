// Every process but the console serves /healthz, /readyz and /metrics on PORT, whatever its
// surfaces: Discord alone opens a port for them, Slack's HTTP mode serves them on its own port.
import { createServer } from "node:net";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../../src/app.js";
import { FakeDiscord } from "../support/fake-discord.js";
import { startFakeSlack } from "../support/fake-slack.js";
import { mentionEvent, postEvent, SIGNING_SECRET } from "../support/fake-slack-requests.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { until } from "../support/until.js";
import { freePort } from "../support/free-port.js";

let folder: { path: string; remove: () => Promise<void> };
let app: RunningApp | undefined;
const closers: Array<() => Promise<unknown>> = [];

beforeEach(async () => {
  folder = await temporaryFolder();
});

afterEach(async () => {
  await app?.stop();
  app = undefined;
  for (const close of closers.splice(0)) await close();
  await folder.remove();
});

const base = () => ({ STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}`, LOG_LEVEL: "silent", OPENAI_API_KEY: "demo", PORT: "0" });

/** A Discord bot's variables against the fake. */
const discordEnv = (discord: FakeDiscord) => ({
  DISCORD_TOKEN: discord.token,
  DISCORD_APPLICATION_ID: discord.applicationId,
  DISCORD_API_URL: discord.apiUrl,
});

/** Starts the app (stopped after the test unless the test stops it) and gives it with its port. */
async function started(env: Record<string, string>): Promise<{ running: RunningApp; port: number }> {
  const result = await startApp(env);
  if (result.kind !== "started") throw new Error(result.message);
  app = result.app;
  return { running: app, port: app.port! };
}

async function get(port: number, path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, text: await response.text() };
}

describe("the ops port", () => {
  it("Discord alone: readiness with the store and the gateway, metrics, and 503 from the first moment of the stop", async () => {
    const discord = await FakeDiscord.start();
    closers.push(() => discord.close());
    const { running, port } = await started({
      ...base(),
      ...discordEnv(discord),
    });
    expect(port).toBeGreaterThan(0);
    expect(await get(port, "/healthz")).toEqual({ status: 200, text: JSON.stringify({ status: "ok" }) });
    const ready = await get(port, "/readyz");
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text).checks).toEqual({
      shutdown: { status: "ok" },
      started: { status: "ok" },
      store: { status: "ok" },
      discord: { status: "ok" },
    });
    const metrics = await get(port, "/metrics");
    expect(metrics.text).toContain("# TYPE agent_bot_runs_started_total counter");
    expect(metrics.text).toContain("process_resident_memory_bytes");
    expect(metrics.text).toMatch(/^agent_bot_queue_depth 0$/m);

    const stopping = running.stop();
    const during = await get(port, "/readyz");
    expect(during.status).toBe(503);
    expect(JSON.parse(during.text).checks.shutdown).toEqual({ status: "failing", reason: "shutting down" });
    await stopping;
    await expect(get(port, "/healthz")).rejects.toThrow();
    app = undefined;
  });

  it("is not ready once the Discord gateway connection is lost", async () => {
    const discord = await FakeDiscord.start();
    const { port } = await started({
      ...base(),
      ...discordEnv(discord),
    });
    expect((await get(port, "/readyz")).status).toBe(200);
    await discord.close();
    await until(async () => (await get(port, "/readyz")).status === 503, "readiness to fail without the gateway", 10_000);
    expect(JSON.parse((await get(port, "/readyz")).text).checks.discord.status).toBe("failing");
  });

  it("Socket Mode opens PORT too, and is not ready once the Socket Mode connection is lost", async () => {
    const slack = await startFakeSlack();
    const { port } = await started({
      ...base(),
      SLACK_BOT_TOKEN: "xoxb-test-token",
      SLACK_APP_TOKEN: "xapp-1-test",
      SLACK_API_URL: slack.apiUrl,
    });
    expect(JSON.parse((await get(port, "/readyz")).text).checks.slack).toEqual({ status: "ok" });
    await slack.close();
    await until(async () => (await get(port, "/readyz")).status === 503, "readiness to fail without the socket", 10_000);
    expect(JSON.parse((await get(port, "/readyz")).text).checks.slack.status).toBe("failing");
  });

  it("Slack's HTTP mode takes its events on the same port: one server per process, and 503 for events once stopping", async () => {
    const slack = await startFakeSlack();
    closers.push(() => slack.close());
    const { running, port } = await started({
      ...base(),
      SLACK_BOT_TOKEN: "xoxb-test-token",
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
    });
    const ready = await get(port, "/readyz");
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text).checks.slack).toEqual({ status: "ok" });
    expect((await get(port, "/metrics")).text).toContain("agent_bot_steps_total");
    // Bolt answers on the same port: a signed event is taken, an unsigned one refused.
    expect(
      (await postEvent(`http://127.0.0.1:${port}/slack/events`, mentionEvent({ text: "<@U0BOT> hi", ts: "1700000000.000100" }))).status,
    ).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/slack/events`, { method: "POST", body: "{}" })).status).toBe(401);

    const stopping = running.stop();
    await until(
      async () =>
        (
          await postEvent(`http://127.0.0.1:${port}/slack/events`, mentionEvent({ text: "<@U0BOT> late", ts: "1700000001.000100" })).catch(
            () => ({ status: 503 }),
          )
        ).status === 503,
      "events to be refused while stopping",
      5_000,
    );
    await stopping;
    app = undefined;
  });

  it("Slack's HTTP mode: until the start is complete, its events get 503 (Slack retries) and readiness fails; then both pass", async () => {
    const slack = await startFakeSlack();
    closers.push(() => slack.close());
    let release: () => void = () => {};
    // Slack is attached only once auth.test answers: the port is open, and the start is not complete.
    slack.fail("auth.test", { holdUntil: new Promise<void>((resolve) => (release = resolve)) });
    const port = await freePort();
    const starting = startApp({
      ...base(),
      PORT: String(port),
      SLACK_BOT_TOKEN: "xoxb-test-token",
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
    });
    await until(async () => (await get(port, "/healthz").catch(() => ({ status: 0 }))).status === 200, "the port to open", 10_000);
    const early = await postEvent(
      `http://127.0.0.1:${port}/slack/events`,
      mentionEvent({ text: "<@U0BOT> early", ts: "1700000002.000100" }),
    );
    expect(early.status).toBe(503);
    const readiness = await get(port, "/readyz");
    expect(readiness.status).toBe(503);
    expect(JSON.parse(readiness.text).checks.started.status).toBe("failing");
    expect((await get(port, "/nope")).status).toBe(404);
    expect((await get(port, "/slack/events")).status).toBe(405);

    release();
    const result = await starting;
    if (result.kind !== "started") throw new Error(result.message);
    app = result.app;
    expect((await get(port, "/readyz")).status).toBe(200);
    // Slack's retry of the refused event is taken now.
    expect(
      (
        await postEvent(`http://127.0.0.1:${port}/slack/events`, mentionEvent({ text: "<@U0BOT> early", ts: "1700000002.000100" }), {
          retryNum: 1,
        })
      ).status,
    ).toBe(200);
  });

  it("stops the start with one line when PORT is taken", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, resolve));
    closers.push(() => new Promise((resolve) => taken.close(resolve)));
    const busy = (taken.address() as { port: number }).port;
    const discord = await FakeDiscord.start();
    closers.push(() => discord.close());
    const result = await startApp({
      ...base(),
      PORT: String(busy),
      ...discordEnv(discord),
    });
    expect(result).toMatchObject({
      kind: "failed",
      message: expect.stringMatching(new RegExp(`^Cannot start: PORT ${busy}: .*EADDRINUSE`)),
    });
  });

  it("a start that fails half-way (the explorer's port is taken) closes what it opened: the same store starts again", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => taken.close(resolve)));
    const busy = (taken.address() as { port: number }).port;
    const discord = await FakeDiscord.start();
    closers.push(() => discord.close());
    const env = {
      ...base(),
      ...discordEnv(discord),
      ADMIN_TOKEN: "a-token-of-sixteen-chars",
    };
    const failed = await startApp({ ...env, ADMIN_PORT: String(busy) });
    expect(failed).toMatchObject({ kind: "failed", message: expect.stringMatching(/^Cannot start: the run explorer's port/) });
    // The store's owner lock was released and the store closed: a second start on the same file is not refused.
    const again = await startApp(env);
    if (again.kind !== "started") throw new Error(again.message);
    app = again.app;
    expect(app.surfaces).toEqual(["discord"]);
  });

  it("the console opens no port", async () => {
    const result = await startApp(
      { STORE_URL: base().STORE_URL },
      { input: new PassThrough(), output: new PassThrough(), username: "ada" },
    );
    if (result.kind !== "started") throw new Error(result.message);
    app = result.app;
    expect(app.port).toBeUndefined();
  });
});
