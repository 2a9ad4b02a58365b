// Token rotation with two real bot processes on one real Redis, installed in a workspace whose
// tokens live four seconds: both answer mentions at the same moments over several lifetimes, so
// both go to refresh the one token at once. Every refresh token is spent once (one process
// refreshes under the lock, the other takes its result from the store), and no call is made with a
// token Slack no longer takes.
import { expect } from "vitest";
import { freePort } from "../support/free-port.js";
import { startBot } from "../support/bot-child.js";
import { startFakeOpenAI, textReply, type RecordedRequest } from "../support/fake-openai-server.js";
import { mentionEvent, postEvent } from "../support/fake-slack-requests.js";
import { ALPHA, install } from "../support/slack-installs.js";
import { useSlackRedisHarness } from "../support/slack-redis-harness.js";
import { describeWithRedis } from "../support/redis-suite.js";
import { it } from "vitest";

const LIFETIME_SECONDS = 4;
const REFRESHES = 4;
const REFUSED = new Set(["token_expired", "invalid_auth", "not_authed", "token_revoked"]);

const harness = useSlackRedisHarness();
const { bots, models } = harness;

/** Answers "answer <question>" to the last question asked. */
const echo = (request: RecordedRequest) =>
  textReply(
    `answer ${
      String(
        (request.body.messages as Array<{ role: string; content: string }>).filter((message) => message.role === "user").at(-1)?.content ??
          "",
      )
        .match(/q-\d+-[ab]/g)
        ?.at(-1) ?? "?"
    }`,
  );

describeWithRedis("two bot processes on one store, with tokens that expire every few seconds", () => {
  it("both refresh as they need, each refresh token spent once, no call with an expired token", async () => {
    const { slack, redis } = harness;
    slack.rotateTokens(LIFETIME_SECONDS);
    models.push(await startFakeOpenAI(), await startFakeOpenAI());
    for (const model of models) model.enqueue(...Array.from({ length: 400 }, () => echo));
    const [a, b] = await Promise.all(
      models.map(async (model) =>
        startBot({
          slackApiUrl: slack.apiUrl,
          slackInstalls: { publicUrl: "https://bot.example.test/" },
          openaiBaseUrl: model.baseUrl,
          storeUrl: redis.url,
          port: await freePort(),
          env: { APPROVAL_SECRET: "a-shared-secret-of-the-deployment" },
        }),
      ),
    );
    bots.push(a!, b!);
    expect((await install(a!.eventsUrl.replace("/slack/events", ""), slack, ALPHA)).status).toBe(200);

    const refreshes = () => slack.callsTo("oauth.v2.access").filter((call) => call.args.grant_type === "refresh_token");
    const workspace = { team: "T0ALPHA", botUserId: ALPHA.botUserId };
    // A question to each process at the same moment, answered before the next pair, until the token was refreshed several times.
    for (let round = 0; refreshes().length < REFRESHES; round++) {
      if (round > 400) throw new Error(`only ${refreshes().length} refreshes after ${round} rounds`);
      await Promise.all(
        [a!, b!].map(async (bot, index) => {
          const question = `q-${round}-${index === 0 ? "a" : "b"}`;
          const ts = `17009${String(round).padStart(5, "0")}.00010${index}`;
          await postEvent(bot.eventsUrl, mentionEvent({ text: `<@${ALPHA.botUserId}> ${question}`, ts, channel: "C0ALPHA", workspace }));
          await slack.waitForShown((text) => text === `answer ${question}`);
        }),
      );
    }

    expect(slack.calls.filter((call) => call.error !== undefined && REFUSED.has(call.error))).toEqual([]);
    expect([...slack.refreshUses.values()].every((uses) => uses === 1)).toBe(true);
    expect(slack.refreshUses.size).toBeGreaterThanOrEqual(REFRESHES);
    // Both processes asked Slack with the workspace's token, each at least once after a refresh the other may have made.
    for (const model of models) expect(model.requests.length).toBeGreaterThan(REFRESHES);
  });
});
