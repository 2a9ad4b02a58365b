// Connecting a `user` MCP server from Slack and from Discord, the app as it starts (startApp),
// against a real authorization server: the requester's private Connect link signs them in through
// PUBLIC_URL/oauth/callback on the bot's HTTP port, the page says so, and the run goes on once, as
// them, in the conversation; the same link opened again changes nothing, and the tokens are
// nowhere in the store as they are. (The console: console-connect.test.ts; who sees the link on
// each surface: the surface contract, test/adapters/surface-contract-connect.test.ts.)
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useAppHarness } from "../../../support/app-harness.js";
import { type ProtectedMcpServer, startProtectedMcpServer } from "../../../support/authorization-server.js";
import { FakeDiscord } from "../../../support/fake-discord.js";
import { type FakeOpenAI, startFakeOpenAI, textReply, toolCallReply } from "../../../support/fake-openai-server.js";
import { startFakeSlack } from "../../../support/fake-slack.js";
import { mentionEvent, postEvent, SIGNING_SECRET } from "../../../support/fake-slack-requests.js";
import { freePort } from "../../../support/free-port.js";
import { openInBrowser } from "../../../support/plain-browser.js";

const apps = useAppHarness();
const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((item) => item.close()));
});

const LINK = /(http:\/\/127\.0\.0\.1:\d+\/oauth\/connect\?state=[A-Za-z0-9_.-]+)/;
const ANSWER = "Done: you are ada at docs.";

interface Setup {
  readonly server: ProtectedMcpServer;
  readonly model: FakeOpenAI;
  readonly env: NodeJS.ProcessEnv;
  readonly port: number;
}

/** The protected server, a model that connects, calls it once and answers, and the app's environment with PUBLIC_URL on PORT. */
async function setUp(): Promise<Setup> {
  const server = await startProtectedMcpServer();
  const model = await startFakeOpenAI();
  opened.push(server, model);
  model.enqueue(toolCallReply([{ name: "docs__connect", args: {} }]), toolCallReply([{ name: "docs__whoami", args: {} }]), (request) =>
    textReply(JSON.stringify(request.body).includes("you are ada") ? ANSWER : "the tool did not answer as ada"),
  );
  const config = join(apps.folder, "mcp.json");
  await writeFile(config, JSON.stringify({ mcpServers: { docs: { url: server.url, auth: { type: "user" } } } }));
  const port = await freePort();
  const env = {
    STORE_URL: apps.storeUrl(),
    LOG_LEVEL: "silent",
    MCP_CONFIG: config,
    OPENAI_API_KEY: "sk-test",
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_MODEL: "gpt-4o-mini",
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    APPROVAL_SECRET: "a-test-approval-secret-0123456789",
    MEMORY_EXTRACT_FACTS: "no",
  };
  return { server, model, env, port };
}

/** Signs in through the link as a browser would; then the same link again, which changes nothing. */
async function signIn(link: string, server: ProtectedMcpServer): Promise<void> {
  expect(server.as.tokenRequests).toEqual([]);
  expect(await openInBrowser(link)).toEqual({ status: 200, text: "Connected to docs — you can close this tab." });
  expect(await openInBrowser(link)).toMatchObject({ status: 409, text: expect.stringContaining("used already") });
}

async function expectNoTokenStored(server: ProtectedMcpServer): Promise<void> {
  const file = await readFile(join(apps.folder, "bot.sqlite"));
  expect(server.as.issued.length).toBeGreaterThanOrEqual(1);
  for (const token of server.as.issued) expect(file.includes(token)).toBe(false);
}

describe("connecting a user server from a chat platform", () => {
  it("Slack: the link comes privately, the sign-in comes back to PUBLIC_URL, the run answers in the thread once", async () => {
    const slack = await startFakeSlack();
    opened.push(slack);
    const { server, model, env, port } = await setUp();
    const started = await apps.start({
      ...env,
      SLACK_BOT_TOKEN: "xoxb-test-token",
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
    });
    if (started.kind !== "started") throw new Error(started.message);

    const asked = await postEvent(
      `http://127.0.0.1:${port}/slack/events`,
      mentionEvent({ text: "<@U0BOT> who am I at docs?", ts: "1700000000.000100" }),
    );
    expect(asked.status).toBe(200);
    const told = await slack.waitForCall("chat.postEphemeral", (call) => LINK.test(JSON.stringify(call.args)));
    expect(told.args.user).toBe("U0ALICE");
    expect(slack.shown((text) => LINK.test(text))).toEqual([]);

    await signIn(LINK.exec(JSON.stringify(told.args))![1]!, server);
    await slack.waitForShown((text) => text.includes(ANSWER));
    expect(server.as.tokenRequests.map((request) => request.grantType)).toEqual(["authorization_code"]);
    expect(model.requests).toHaveLength(3);
    expect(slack.shown((text) => text.includes(ANSWER))).toHaveLength(1);
    await expectNoTokenStored(server);
  });

  it("Discord: the link comes privately, the sign-in comes back to PUBLIC_URL, the run answers once", async () => {
    const discord = await FakeDiscord.start();
    opened.push(discord);
    const { server, model, env } = await setUp();
    const started = await apps.start({
      ...env,
      DISCORD_TOKEN: discord.token,
      DISCORD_APPLICATION_ID: discord.applicationId,
      DISCORD_API_URL: discord.apiUrl,
    });
    if (started.kind !== "started") throw new Error(started.message);
    const alice = { id: "100000000000000001", username: "alice" };

    discord.slashCommand("ask", alice, { values: { question: "who am I at docs?" } });
    const told = await discord.waitForCall("POST", /^\/webhooks\//, (call) => LINK.test(JSON.stringify(call.body)), 10_000);
    // A follow-up only the person who asked sees.
    expect(told.body.flags & 64).toBe(64);

    await signIn(LINK.exec(JSON.stringify(told.body))![1]!, server);
    await discord.waitForCall(["POST", "PATCH"], /./, (call) => JSON.stringify(call.body).includes(ANSWER), 10_000);
    expect(server.as.tokenRequests.map((request) => request.grantType)).toEqual(["authorization_code"]);
    expect(model.requests).toHaveLength(3);
    await expectNoTokenStored(server);
  });
});
