// Files through a real bot process on Slack (Bolt over HTTP against the fake Slack, the model
// behind a fake OpenAI server through the real openai client): an image reaches a vision model
// as an image_url part; a kill -9 during the model call after a PDF was read, and a start on the
// same store, answer once without fetching the file again; a message of hostile files keeps the
// bot's processes within a stated memory figure (measured from outside) and the bot answers on.
import { describe, expect, it } from "vitest";
import { freePort } from "../support/free-port.js";
import { startBot, type BotProcess } from "../support/bot-child.js";
import { textReply, type RecordedRequest } from "../support/fake-openai-server.js";
import { BOT_USER_ID } from "../support/fake-slack.js";
import { SLACK_BOT_TOKEN } from "../support/fake-slack-files.js";
import { mentionEvent, postEvent } from "../support/fake-slack-requests.js";
import { bombPng, pdf, png } from "../support/sample-files.js";
import { animatedGif, flateBombPdf, invalidUtf8, oneLineText } from "../support/hostile-files.js";
import { treeResidentBytes } from "../support/process-tree.js";
import { useSlackBotHarness } from "../support/slack-bot-harness.js";

const harness = useSlackBotHarness();

async function bot(storeUrl: string, port: number, env: Record<string, string> = {}): Promise<BotProcess> {
  const started = await startBot({
    slackApiUrl: harness.slack.apiUrl,
    openaiBaseUrl: harness.model.baseUrl,
    storeUrl,
    port,
    env: { SLACK_BOT_TOKEN, ...env },
  });
  harness.bots.push(started);
  return started;
}

type Part = { type: string; text?: string; image_url?: { url: string } };
const userParts = (request: RecordedRequest): Part[] => {
  const user = (request.body.messages as Array<{ role: string; content: string | Part[] }>)
    .filter((message) => message.role === "user")
    .pop();
  return typeof user?.content === "string" ? [{ type: "text", text: user.content }] : (user?.content ?? []);
};
const posted = (text: string) => harness.slack.callsTo("chat.postMessage").filter((call) => call.args.text === text);

describe("files through a bot process on Slack", () => {
  it("an image to a vision model (OPENAI_MODEL gpt-4o): an image_url part with a data URL reaches the model", async () => {
    const port = await freePort();
    const started = await bot(`sqlite://${harness.folder.path}/bot.sqlite`, port, { OPENAI_MODEL: "gpt-4o" });
    harness.model.enqueue(textReply("A 640×480 picture."));
    const file = harness.slack.addFile({ name: "screen.png", mimetype: "image/png", data: await png(640, 480) });
    await postEvent(started.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> what is this?`, ts: "1700300000.000100", files: [file] }));
    await harness.slack
      .waitForCall("chat.postMessage", (call) => call.args.text === "A 640×480 picture.", 20_000)
      .catch((error: Error) => {
        throw new Error(`${error.message}\n${started.logs()}`);
      });
    const parts = userParts(harness.model.requests[0]!);
    expect(parts.find((part) => part.type === "image_url")?.image_url?.url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    expect(parts.some((part) => part.text?.includes("what is this?"))).toBe(true);
    expect(harness.slack.fileRequests.map((request) => request.headers.authorization)).toEqual([`Bearer ${SLACK_BOT_TOKEN}`]);
  }, 60_000);

  it("kill -9 during the model call after a PDF was read: the restart answers once and does not download it again", async () => {
    const storeUrl = `sqlite://${harness.folder.path}/bot.sqlite`;
    const port = await freePort();
    let hungOnce = false;
    harness.model.enqueue(
      ...Array.from({ length: 4 }, () => () => {
        if (hungOnce) return textReply("The spec has 3 pages.");
        hungOnce = true;
        return { hang: true as const };
      }),
    );
    const file = harness.slack.addFile({ name: "spec.pdf", mimetype: "application/pdf", data: await pdf(3) });
    const first = await bot(storeUrl, port);
    await postEvent(first.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> how long is it?`, ts: "1700300100.000100", files: [file] }));
    await harness.model.waitForRequests(1, 20_000);
    first.child.kill("SIGKILL");
    await first.exited;
    expect(posted("The spec has 3 pages.")).toHaveLength(0);
    expect(harness.slack.fileRequests).toHaveLength(1);

    const second = await bot(storeUrl, port);
    await harness.slack
      .waitForCall("chat.postMessage", (call) => call.args.text === "The spec has 3 pages.", 20_000)
      .catch((error: Error) => {
        throw new Error(`${error.message}\nfirst:\n${first.logs()}\nsecond:\n${second.logs()}`);
      });
    second.child.kill("SIGTERM");
    await second.exited;
    expect(posted("The spec has 3 pages.")).toHaveLength(1);
    expect(harness.slack.fileRequests).toHaveLength(1);
    expect(JSON.stringify(userParts(harness.model.requests.at(-1)!))).toContain("Page 3 of the spec");
  }, 90_000);

  it("a message of eight hostile files: each is named with its reason, the bot's processes stay under 1 GB, the next mention is answered", async () => {
    const port = await freePort();
    const started = await bot(`sqlite://${harness.folder.path}/bot.sqlite`, port, { OPENAI_MODEL: "gpt-4o" });
    const pid = started.child.pid!;
    const files = [
      harness.slack.addFile({ name: "one.pdf", mimetype: "application/pdf", data: flateBombPdf(2_048, "one stream") }),
      harness.slack.addFile({ name: "many.pdf", mimetype: "application/pdf", data: flateBombPdf(2_048, "many streams") }),
      harness.slack.addFile({ name: "objects.pdf", mimetype: "application/pdf", data: flateBombPdf(2_048, "object stream") }),
      harness.slack.addFile({ name: "nested.pdf", mimetype: "application/pdf", data: flateBombPdf(2_048, "nested") }),
      harness.slack.addFile({ name: "huge.png", mimetype: "image/png", data: bombPng(100_000, 100_000) }),
      harness.slack.addFile({ name: "frames.gif", mimetype: "image/gif", data: animatedGif(10_000) }),
      harness.slack.addFile({ name: "line.txt", mimetype: "text/plain", data: oneLineText(20 * 1024 * 1024) }),
      harness.slack.addFile({ name: "bad.txt", mimetype: "text/plain", data: invalidUtf8(10_000) }),
    ];
    harness.model.enqueue(textReply("Four of those PDFs are bombs."), textReply("Still here."));
    // Measured here at about 600 MB: the bot at about 350 MB (the 20 MB text decoded, counted and stored) and two readers.
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, treeResidentBytes(pid))), 20);
    try {
      await postEvent(started.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> what are these?`, ts: "1700400000.000100", files }));
      await harness.slack
        .waitForCall("chat.postMessage", (call) => call.args.text === "Four of those PDFs are bombs.", 60_000)
        .catch((error: Error) => {
          throw new Error(`${error.message}\n${started.logs()}`);
        });
    } finally {
      clearInterval(sampler);
    }
    const seen = JSON.stringify(userParts(harness.model.requests[0]!));
    expect(seen.match(/it expands to more than 100\.0 MB \(FILE_MAX_EXPANDED_BYTES\)/g)).toHaveLength(4);
    expect(seen).toContain("more than the 50 megapixels the bot decodes");
    expect(userParts(harness.model.requests[0]!).some((part) => part.type === "image_url")).toBe(true);
    expect(peak).toBeLessThan(1024 * 1024 * 1024);

    await postEvent(started.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> still there?`, ts: "1700400001.000100" }));
    await harness.slack.waitForCall("chat.postMessage", (call) => call.args.text === "Still here.", 30_000);
  }, 120_000);
});
