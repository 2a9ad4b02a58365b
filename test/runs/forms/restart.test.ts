// A restart while a server's form is open, through real bot processes (Slack over HTTP, the model
// behind a fake OpenAI server) and an SDK-built MCP server on 127.0.0.1. The server's question
// lives only in the connection of the process that received it, so it can't survive kill -9:
// the server hears nothing from us (its own timeout ends its wait); the next process takes the
// run up from its last checkpoint and, when the server asks again, a new card comes; the old
// card then says its form ended with the restart, opens nothing and sends nothing.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FORM_DECLINE_ACTION, FORM_OPEN_ACTION } from "../../../src/adapters/slack/form-message.js";
import { startBot, type BotProcess } from "../../support/bot-child.js";
import { textReply, toolCallReply, type RecordedRequest } from "../../support/fake-openai-server.js";
import { BOT_USER_ID, shownText, type RecordedCall } from "../../support/fake-slack.js";
import { blockActionPayload, mentionEvent, postEvent, postInteraction } from "../../support/fake-slack-requests.js";
import { freePort } from "../../support/free-port.js";
import { askingTools } from "../../support/mcp-asking-tools.js";
import { startMcpHttpServer, type TestMcpHttpServer } from "../../support/mcp-http-server.js";
import { useSlackBotHarness } from "../../support/slack-bot-harness.js";
import { until } from "../../support/until.js";
import { dataInside } from "../../../src/agent/context/data-blocks.js";

const harness = useSlackBotHarness();
let http: TestMcpHttpServer | undefined;
afterEach(async () => {
  await http?.kill();
  http = undefined;
});

const THREAD = "1700009300.000100";
const toolResults = (request: RecordedRequest): string[] =>
  (request.body.messages as Array<{ role: string; content: string }>)
    .filter((message) => message.role === "tool")
    .map((message) => dataInside(message.content));

const hasOpenButton = (call: RecordedCall) =>
  call.method === "chat.postEphemeral" && JSON.stringify(call.args.blocks ?? []).includes(FORM_OPEN_ACTION);

function buttonValue(card: RecordedCall, action: string): string {
  const blocks = card.args.blocks as Array<{ elements?: Array<{ action_id: string; value?: string }> }>;
  return blocks.flatMap((block) => block.elements ?? []).find((element) => element.action_id === action)!.value!;
}

function press(eventsUrl: string, card: RecordedCall, action: string) {
  return postInteraction(
    eventsUrl,
    blockActionPayload({
      user: "U0ALICE",
      actionId: action,
      value: buttonValue(card, action),
      channel: "C0GENERAL",
      messageTs: "1700009300.000200",
      threadTs: THREAD,
      ephemeral: true,
      triggerId: harness.slack.trigger(),
    }),
  );
}

describe("a restart while a server's form is open", () => {
  it("leaves the server no answer, closes the old form honestly, and the taken-up run asks anew", async () => {
    const { setup, log } = askingTools({ elicitTimeoutMs: 4_000 });
    http = await startMcpHttpServer({ tools: setup });
    const mcpConfig = join(harness.folder.path, "mcp.json");
    await writeFile(mcpConfig, JSON.stringify({ mcpServers: { rooms: { url: http.url } } }));
    const script = (request: RecordedRequest) =>
      toolResults(request).length === 0
        ? toolCallReply([{ name: "rooms__book_room", args: {}, id: "b1" }])
        : textReply(`server said: ${toolResults(request).at(-1)}`);
    harness.model.enqueue(...Array.from({ length: 10 }, () => script));
    const storeUrl = `sqlite://${harness.folder.path}/bot.sqlite`;
    const port = await freePort();
    const env = { MCP_CONFIG: mcpConfig };
    const bot = async (): Promise<BotProcess> => {
      const started = await startBot({ slackApiUrl: harness.slack.apiUrl, openaiBaseUrl: harness.model.baseUrl, storeUrl, port, env });
      harness.bots.push(started);
      return started;
    };

    const first = await bot();
    await postEvent(first.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> book a room`, ts: THREAD }));
    const oldCard = await harness.slack.waitForCall("chat.postEphemeral", hasOpenButton, 30_000);
    first.child.kill("SIGKILL");
    await first.exited;

    const second = await bot();
    const newCard = await harness.slack.waitForCall("chat.postEphemeral", (call) => hasOpenButton(call) && call !== oldCard, 30_000);
    expect(buttonValue(newCard, FORM_OPEN_ACTION)).not.toBe(buttonValue(oldCard, FORM_OPEN_ACTION));

    // The server's first question got nothing from us: its own timeout ended it.
    await until(() => log.results.length >= 1, "the server's first question to end", 15_000);
    expect(log.results[0]).toEqual({ error: expect.stringMatching(/timed out/i) });

    await press(second.eventsUrl, oldCard, FORM_OPEN_ACTION);
    const told = await harness.slack.waitForCall("chat.postEphemeral", (call) =>
      String(call.args.text).includes("ended when the bot restarted"),
    );
    expect(told.args.user).toBe("U0ALICE");
    expect(harness.slack.opened).toHaveLength(0);

    await press(second.eventsUrl, newCard, FORM_DECLINE_ACTION);
    await until(() => log.results.some((result) => "action" in result && result.action === "decline"), "the second question's answer");
    expect(log.results.filter((result) => "action" in result)).toEqual([{ action: "decline" }]);
    await until(
      () => harness.slack.threadMessages("C0GENERAL", THREAD).map(shownText).join("\n").includes('server said: {"action":"decline"}'),
      "the run's answer",
      15_000,
    );
  }, 90_000);
});
