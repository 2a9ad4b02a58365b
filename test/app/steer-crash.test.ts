// A message added to a run in progress, through real bot processes (Slack in HTTP mode, the model
// behind a fake OpenAI server): kill -9 after Slack heard the ack of the person's steer and before
// the run used it; the next start's run gets it before its next model call, once, and it is not
// answered again on its own. An edit acknowledged likewise.
import { describe, expect, it } from "vitest";
import { freePort } from "../support/free-port.js";
import { startBot, type BotProcess } from "../support/bot-child.js";
import { textReply, toolCallReply, type RecordedRequest, type ScriptedResponse } from "../support/fake-openai-server.js";
import { BOT_USER_ID } from "../support/fake-slack-types.js";
import { channelMessageEvent, mentionEvent, messageChangedEvent, postEvent } from "../support/fake-slack-requests.js";
import { useSlackBotHarness } from "../support/slack-bot-harness.js";

const harness = useSlackBotHarness();

const said = (request: RecordedRequest) => JSON.stringify(request.body.messages);
const hasTool = (request: RecordedRequest) => (request.body.messages as Array<{ role: string }>).some((message) => message.role === "tool");

/** Hangs the first call (the run the kill cuts short); then a calculator call, then an answer naming what was added. */
function script(added: string): ScriptedResponse[] {
  let first = true;
  return Array.from({ length: 8 }, () => (request: RecordedRequest): ReturnType<Extract<ScriptedResponse, Function>> => {
    if (first) {
      first = false;
      return { hang: true };
    }
    if (!hasTool(request)) return toolCallReply([{ name: "calculator", args: { expression: "1+1" } }]);
    return textReply(said(request).includes(added) ? "Done, with what you added." : "Done, without it.");
  });
}

async function bot(storeUrl: string, port: number): Promise<BotProcess> {
  const started = await startBot({
    slackApiUrl: harness.slack.apiUrl,
    openaiBaseUrl: harness.model.baseUrl,
    storeUrl,
    port,
    env: { CONCURRENT_MESSAGES: "steer" },
  });
  harness.bots.push(started);
  return started;
}

describe("what a person adds to a run, across kill -9", () => {
  it.each([
    ["a steer", "The person added: only this week"],
    ["an edit", "The person edited their question to: summarise #deploys"],
  ])(
    "%s acknowledged before the kill reaches the run after the restart, once",
    async (kind, added) => {
      const storeUrl = `sqlite://${harness.folder.path}/bot.sqlite`;
      const port = await freePort();
      harness.model.enqueue(...script(added));
      const first = await bot(storeUrl, port);
      const question = harness.slack.nextTs();
      harness.slack.addMessage({ channel: "C0GENERAL", ts: question, user: "U0ALICE", text: `<@${BOT_USER_ID}> summarise #releases` });
      expect((await postEvent(first.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> summarise #releases`, ts: question }))).status).toBe(
        200,
      );
      await harness.model.waitForRequests(1, 20_000);

      const change =
        kind === "a steer"
          ? channelMessageEvent({ text: "only this week", ts: harness.slack.nextTs(), thread_ts: question })
          : messageChangedEvent({
              ts: question,
              text: `<@${BOT_USER_ID}> summarise #deploys`,
              previousText: `<@${BOT_USER_ID}> summarise #releases`,
              editedTs: harness.slack.nextTs(),
            });
      // Slack heard the ack: from here the bot owns it.
      expect((await postEvent(first.eventsUrl, change)).status).toBe(200);
      first.child.kill("SIGKILL");
      await first.exited;

      const second = await bot(storeUrl, port);
      await harness.slack
        .waitForShown((text) => text.startsWith("Done,"), 30_000)
        .catch((error: Error) => {
          throw new Error(`${error.message}\nfirst:\n${first.logs()}\nsecond:\n${second.logs()}`);
        });
      second.child.kill("SIGTERM");
      await second.exited;
      expect(harness.slack.shown((text) => text.startsWith("Done,")).map((message) => message.text || "streamed")).toHaveLength(1);
      expect(harness.slack.shown((text) => text === "Done, with what you added.")).toHaveLength(1);
      const withAdded = harness.model.requests.filter((request) => said(request).includes(added));
      expect(withAdded).toHaveLength(1);
    },
    90_000,
  );
});
