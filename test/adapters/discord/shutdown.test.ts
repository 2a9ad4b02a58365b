// A Discord bot process stopped with SIGTERM while runs are in flight: it stops taking work,
// lets the runs reach their end and post, and only then closes its Discord client (destroying it
// first cleared the token every post needs: the answers were lost, and their messages marked
// done). Real child processes; what each person received is counted.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freePort } from "../../support/free-port.js";
import { startBot, type BotProcess } from "../../support/bot-child.js";
import { FakeDiscord } from "../../support/fake-discord.js";
import { startFakeOpenAI, textReply, type FakeOpenAI, type RecordedRequest } from "../../support/fake-openai-server.js";
import { temporaryFolder } from "../../support/temporary-folder.js";
import { until } from "../../support/until.js";

let discord: FakeDiscord;
let model: FakeOpenAI;
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
const bots: BotProcess[] = [];

beforeEach(async () => {
  discord = await FakeDiscord.start();
  model = await startFakeOpenAI();
  folder = await temporaryFolder();
});
afterEach(async () => {
  for (const bot of bots.splice(0)) if (bot.child.exitCode === null && bot.child.signalCode === null) bot.child.kill("SIGKILL");
  await model.close();
  await discord.close();
  await folder.remove();
});

async function bot(storeUrl: string): Promise<BotProcess> {
  const started = await startBot({
    discord: { apiUrl: discord.apiUrl, token: discord.token, applicationId: discord.applicationId },
    openaiBaseUrl: model.baseUrl,
    storeUrl,
    port: await freePort(),
  });
  bots.push(started);
  return started;
}

/** How often each question's answer was posted (as a reply to the mention, edited into the answer). */
const answersFor = (questions: readonly string[]) =>
  questions.map(
    (question) => discord.calls.filter((call) => call.status === 200 && call.body?.content === `answer for ${question}`).length,
  );

describe("Discord and SIGTERM", () => {
  it("answers the runs that finish while it stops, and leaves nothing done without its answer", async () => {
    const storeUrl = `sqlite://${folder.path}/bot.sqlite`;
    const questions = ["question 1", "question 2", "question 3"];
    // Each run's one model call takes 1.5 s: they end inside the runner's 8 s of grace.
    const asked = (request: RecordedRequest) =>
      String(
        (request.body.messages as Array<{ role: string; content: string }>).filter((message) => message.role === "user").at(-1)?.content,
      );
    model.enqueue(...questions.map(() => (request: RecordedRequest) => ({ ...textReply(`answer for ${asked(request)}`), delayMs: 1_500 })));
    const first = await bot(storeUrl);
    const alice = { id: "1300000000000000001", username: "alice" };
    for (const question of questions) discord.userMessage(alice, question, { mentionBot: true });
    await model.waitForRequests(3, 15_000);
    first.child.kill("SIGTERM");
    const exit = await first.exited;
    expect(exit.code).toBe(0);
    expect(answersFor(questions)).toEqual([1, 1, 1]);

    // Nothing was left for the next start, and nothing is answered twice.
    const second = await bot(storeUrl);
    await until(() => second.logs().includes("discord adapter connected"), "the second start");
    second.child.kill("SIGTERM");
    await second.exited;
    expect(answersFor(questions)).toEqual([1, 1, 1]);
  }, 60_000);
});
