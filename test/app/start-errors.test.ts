// A chat surface that can't start is one line: what failed, the cause, the fix. Each cause is
// made for real: the Slack Web API client and discord.js's REST client against servers on
// 127.0.0.1 (a closed port, one that accepts and never answers, one answering 401 or 404) and a
// `.invalid` host name, which never resolves.
import { once } from "node:events";
import { createServer as createHttpServer } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { webApi } from "@slack/bolt";
import { REST, Routes } from "discord.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp } from "../../src/app.js";
import { describeStartError, startFailureLine } from "../../src/start-errors.js";
import { temporaryFolder } from "../support/temporary-folder.js";

const servers: Server[] = [];
const sockets = new Set<Socket>();
let refusedPort: number;
let silentPort: number;
const answering: Record<number, number> = {};

async function listen(server: Server): Promise<number> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  servers.push(server);
  return (server.address() as { port: number }).port;
}

beforeAll(async () => {
  const probe = createServer();
  refusedPort = await listen(probe);
  servers.pop();
  probe.close();
  await once(probe, "close");
  // Takes the connection and never says a word.
  silentPort = await listen(createServer((socket) => void sockets.add(socket)));
  for (const status of [401, 404])
    answering[status] = await listen(
      createHttpServer((_request, response) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify({ message: `${status}: refused`, code: 0 }));
      }),
    );
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** What Slack's Web API client throws for auth.test at `apiUrl`, with no retries and a short timeout. */
async function slackError(apiUrl: string): Promise<unknown> {
  const client = new webApi.WebClient("xoxb-test", {
    slackApiUrl: apiUrl,
    retryConfig: { retries: 0 },
    timeout: 300,
    logLevel: webApi.LogLevel.ERROR,
  });
  return client.auth.test().then(
    () => expect.fail("auth.test should fail"),
    (error: unknown) => error,
  );
}

/** What discord.js's REST client throws for GET /gateway/bot at `apiUrl`. */
async function discordError(apiUrl: string): Promise<unknown> {
  const rest = new REST({ api: apiUrl, retries: 0, timeout: 300 }).setToken("discord-test-token");
  try {
    return await rest.get(Routes.gatewayBot()).then(
      () => expect.fail("the request should fail"),
      (error: unknown) => error,
    );
  } finally {
    rest.clearHashSweeper();
    rest.clearHandlerSweeper();
  }
}

const local = (port: number) => `127.0.0.1:${port}`;

describe("why Slack could not start", () => {
  it("a host name that does not resolve: DNS, and where to look", async () => {
    const failure = describeStartError("slack", await slackError("http://slack.invalid/api/"), "http://slack.invalid/api/");
    expect(startFailureLine("slack", failure)).toBe(
      "Cannot start slack: could not reach slack.invalid (DNS lookup failed: ENOTFOUND). Check the network or SLACK_API_URL.",
    );
    expect(failure.retryable).toBe(true);
  });

  it("a closed port: connection refused", async () => {
    const url = `http://${local(refusedPort)}/api/`;
    expect(describeStartError("slack", await slackError(url), url)).toEqual({
      cause: `could not reach ${local(refusedPort)} (connection refused: ECONNREFUSED)`,
      fix: "Check the network or SLACK_API_URL.",
      retryable: true,
    });
  });

  it("a server that never answers: timed out", async () => {
    const url = `http://${local(silentPort)}/api/`;
    expect(describeStartError("slack", await slackError(url), url)).toEqual({
      cause: `${local(silentPort)} did not answer in time`,
      fix: "Check the network or SLACK_API_URL.",
      retryable: true,
    });
  });

  it("401 and 404: the token or the URL, and no retry helps", async () => {
    const unauthorized = `http://${local(answering[401]!)}/api/`;
    expect(describeStartError("slack", await slackError(unauthorized), unauthorized)).toEqual({
      cause: `${local(answering[401]!)} answered 401 Unauthorized`,
      fix: "Check SLACK_BOT_TOKEN, and SLACK_API_URL if it is set.",
      retryable: false,
    });
    const missing = `http://${local(answering[404]!)}/api/`;
    expect(describeStartError("slack", await slackError(missing), missing)).toEqual({
      cause: `${local(answering[404]!)} answered 404 Not Found`,
      fix: "Check SLACK_API_URL (it ends in /api/).",
      retryable: false,
    });
  });

  it("an answer of Slack's own: its code, and which token to check", () => {
    const error = Object.assign(new Error("An API error occurred: not_allowed_token_type"), {
      data: { ok: false, error: "not_allowed_token_type" },
    });
    expect(describeStartError("slack", error)).toEqual({
      cause: 'Slack answered "not_allowed_token_type"',
      fix: "Check SLACK_APP_TOKEN: an app-level token (xapp-) with the connections:write scope.",
      retryable: false,
    });
  });

  it("something else: its own words, never a token, and where the details are", () => {
    expect(startFailureLine("slack", describeStartError("slack", new Error("odd failure with xoxb-123-456-abc")))).toBe(
      "Cannot start slack: odd failure with [secret]. Run with LOG_LEVEL=debug to see the details.",
    );
  });
});

describe("why Discord could not start", () => {
  it("a host name that does not resolve, a closed port, a silent server", async () => {
    expect(describeStartError("discord", await discordError("http://discord.invalid"), "http://discord.invalid").cause).toBe(
      "could not reach discord.invalid (DNS lookup failed: ENOTFOUND)",
    );
    const refused = `http://${local(refusedPort)}`;
    expect(describeStartError("discord", await discordError(refused), refused)).toEqual({
      cause: `could not reach ${local(refusedPort)} (connection refused: ECONNREFUSED)`,
      fix: "Check the network or DISCORD_API_URL.",
      retryable: true,
    });
    const silent = `http://${local(silentPort)}`;
    expect(describeStartError("discord", await discordError(silent), silent).cause).toBe(`${local(silentPort)} did not answer in time`);
  });

  it("the cause kept only as text, as the Discord surface wraps it today", async () => {
    const refused = `http://${local(refusedPort)}`;
    const wrapped = new Error(`Could not connect to Discord: ${((await discordError(refused)) as Error).message}`);
    expect(describeStartError("discord", wrapped, refused).cause).toBe(
      `could not reach ${local(refusedPort)} (connection refused: ECONNREFUSED)`,
    );
  });

  it("401 and 404: the token or the URL", async () => {
    const unauthorized = `http://${local(answering[401]!)}`;
    expect(describeStartError("discord", await discordError(unauthorized), unauthorized)).toEqual({
      cause: `${local(answering[401]!)} answered 401 Unauthorized`,
      fix: "Check DISCORD_TOKEN, and DISCORD_API_URL if it is set.",
      retryable: false,
    });
    const missing = `http://${local(answering[404]!)}`;
    expect(describeStartError("discord", await discordError(missing), missing).fix).toBe(
      "Check DISCORD_API_URL (the REST API's base, without /v10).",
    );
  });
});

describe("startApp when Slack can't be reached", () => {
  it("fails with the one line that names the cause and the fix", async () => {
    const folder = await temporaryFolder();
    try {
      const result = await startApp({
        STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}`,
        LOG_LEVEL: "silent",
        OPENAI_API_KEY: "demo",
        SLACK_BOT_TOKEN: "xoxb-test-token",
        SLACK_APP_TOKEN: "xapp-test-token",
        SLACK_API_URL: `http://${local(refusedPort)}/api/`,
        PORT: "0",
      });
      expect(result).toEqual({
        kind: "failed",
        message: `Cannot start slack: could not reach ${local(refusedPort)} (connection refused: ECONNREFUSED). Check the network or SLACK_API_URL.`,
      });
    } finally {
      await folder.remove();
    }
  }, 30_000);
});
