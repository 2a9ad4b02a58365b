// Files through a real bot process on Slack (Bolt over HTTP against the fake Slack, the model
// behind a fake OpenAI server through the real openai client): an image reaches a vision model
// as an image_url part; a kill -9 during the model call after a PDF was read, and a start on the
// same store, answer once without fetching the file again.
import { describe, expect, it } from "vitest";
import { freePort, startBot, type BotProcess } from "./support/bot-process.js";
import { textReply, type RecordedRequest } from "./support/fake-openai-server.js";
import { BOT_USER_ID } from "./support/fake-slack.js";
import { SLACK_BOT_TOKEN } from "./support/fake-slack-files.js";
import { mentionEvent, postEvent } from "./support/fake-slack-requests.js";
import { pdf, png } from "./support/files-kit.js";
import { useSlackBotWorld } from "./support/slack-bot-world.js";

const world = useSlackBotWorld();

async function bot(storeUrl: string, port: number, env: Record<string, string> = {}): Promise<BotProcess> {
  const started = await startBot({
    slackApiUrl: world.slack.apiUrl,
    openaiBaseUrl: world.model.baseUrl,
    storeUrl,
    port,
    env: { SLACK_BOT_TOKEN, ...env },
  });
  world.bots.push(started);
  return started;
}

type Part = { type: string; text?: string; image_url?: { url: string } };
const userParts = (request: RecordedRequest): Part[] => {
  const user = (request.body.messages as Array<{ role: string; content: string | Part[] }>)
    .filter((message) => message.role === "user")
    .pop();
  return typeof user?.content === "string" ? [{ type: "text", text: user.content }] : (user?.content ?? []);
};
const posted = (text: string) => world.slack.callsTo("chat.postMessage").filter((call) => call.args.text === text);

describe("files through a bot process on Slack", () => {
  it("an image to a vision model (OPENAI_MODEL gpt-4o): an image_url part with a data URL reaches the model", async () => {
    const port = await freePort();
    const started = await bot(`sqlite://${world.folder.path}/bot.sqlite`, port, { OPENAI_MODEL: "gpt-4o" });
    world.model.enqueue(textReply("A 640×480 picture."));
    const file = world.slack.addFile({ name: "screen.png", mimetype: "image/png", data: await png(640, 480) });
    await postEvent(started.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> what is this?`, ts: "1700300000.000100", files: [file] }));
    await world.slack
      .waitForCall("chat.postMessage", (call) => call.args.text === "A 640×480 picture.", 20_000)
      .catch((error: Error) => {
        throw new Error(`${error.message}\n${started.logs()}`);
      });
    const parts = userParts(world.model.requests[0]!);
    expect(parts.find((part) => part.type === "image_url")?.image_url?.url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    expect(parts.some((part) => part.text?.includes("what is this?"))).toBe(true);
    expect(world.slack.fileRequests.map((request) => request.headers.authorization)).toEqual([`Bearer ${SLACK_BOT_TOKEN}`]);
  }, 60_000);

  it("kill -9 during the model call after a PDF was read: the restart answers once and does not download it again", async () => {
    const storeUrl = `sqlite://${world.folder.path}/bot.sqlite`;
    const port = await freePort();
    let hungOnce = false;
    world.model.enqueue(
      ...Array.from({ length: 4 }, () => () => {
        if (hungOnce) return textReply("The spec has 3 pages.");
        hungOnce = true;
        return { hang: true as const };
      }),
    );
    const file = world.slack.addFile({ name: "spec.pdf", mimetype: "application/pdf", data: await pdf(3) });
    const first = await bot(storeUrl, port);
    await postEvent(first.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> how long is it?`, ts: "1700300100.000100", files: [file] }));
    await world.model.waitForRequests(1, 20_000);
    first.child.kill("SIGKILL");
    await first.exited;
    expect(posted("The spec has 3 pages.")).toHaveLength(0);
    expect(world.slack.fileRequests).toHaveLength(1);

    const second = await bot(storeUrl, port);
    await world.slack
      .waitForCall("chat.postMessage", (call) => call.args.text === "The spec has 3 pages.", 20_000)
      .catch((error: Error) => {
        throw new Error(`${error.message}\nfirst:\n${first.logs()}\nsecond:\n${second.logs()}`);
      });
    second.child.kill("SIGTERM");
    await second.exited;
    expect(posted("The spec has 3 pages.")).toHaveLength(1);
    expect(world.slack.fileRequests).toHaveLength(1);
    expect(JSON.stringify(userParts(world.model.requests.at(-1)!))).toContain("Page 3 of the spec");
  }, 90_000);
});
