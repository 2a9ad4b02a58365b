// kill -9 a bot process while its answer streams into a Slack thread, start another on the same
// store, and count what the person received: the half-written message is stopped and marked as
// answered again below (never left streaming), and the answer comes once, whole, with 👍 / 👎.
// Also killed while Slack starts a stream, before the bot heard its id or could record it: the
// next process finds the stream in the run's thread and stops it.
import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FEEDBACK_UP_ACTION } from "../../../src/adapters/slack/feedback-buttons.js";
import { INTERRUPTED_ANSWER } from "../../../src/adapters/core/texts.js";
import { BOT_USER_ID, shownText, startFakeSlack, type FakeSlack } from "../../support/fake-slack.js";
import { mentionEvent, postEvent } from "../../support/fake-slack-requests.js";
import { temporaryFolder } from "../../support/temporary-folder.js";
import { until } from "../../support/until.js";

const CHANNEL = "C0GENERAL";
const THREAD = "1700009200.000100";
const ANSWER = Array.from({ length: 12 }, (_, index) => `Point ${index + 1}: the numbers went up, and nobody knows why.`).join("\n");

let slack: FakeSlack;
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
const children: ChildProcess[] = [];
beforeEach(async () => {
  slack = await startFakeSlack();
  folder = await temporaryFolder();
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await slack.close();
  await folder.remove();
});

/** A bot process on the test's store; resolves with where it takes events, once it does. */
async function startProcess(
  paceMs: number,
  steps: "answer" | "tool" = "answer",
): Promise<{ child: ChildProcess; eventsUrl: string; exited: Promise<unknown> }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "test/support/streaming-slack-process.ts",
      slack.apiUrl,
      `sqlite://${folder.path}/bot.sqlite`,
      String(paceMs),
      ANSWER,
      ...(steps === "tool" ? ["tool"] : []),
    ],
    { cwd: process.cwd(), env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  const exited = new Promise((resolve) => child.on("exit", resolve));
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  await until(() => output.includes('"eventsUrl"'), `the bot to take events (it said: ${output})`, 30_000, 50);
  const { eventsUrl } = JSON.parse(output.split("\n").find((line) => line.includes('"eventsUrl"'))!) as { eventsUrl: string };
  return { child, eventsUrl, exited };
}

const thread = () => slack.threadMessages(CHANNEL, THREAD);

/** kill -9; resolves with the message it left streaming. */
async function killed(started: { child: ChildProcess; exited: Promise<unknown> }) {
  started.child.kill("SIGKILL");
  await started.exited;
  return slack.leftStreaming()[0];
}

/** The answer shows with its 👍 / 👎. */
const answerShown = () =>
  until(() => thread().some((message) => JSON.stringify(message.blocks ?? []).includes(FEEDBACK_UP_ACTION)), "the answer", 20_000, 50);

describe("a streamed answer survives kill -9", () => {
  it("killed mid-stream: the next process stops and marks the half-written message and answers once below it", async () => {
    const first = await startProcess(150);
    await postEvent(first.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> how did the numbers go?`, ts: THREAD }));
    // Some of the answer showed, and the stream is open.
    await slack.waitForCall("chat.appendStream", () => true, 20_000);
    const half = await killed(first);
    expect(half).toBeDefined();
    expect(ANSWER.startsWith(shownText(half!))).toBe(true);

    await startProcess(5);
    await answerShown();

    expect(slack.leftStreaming()).toEqual([]);
    expect(shownText(slack.message(CHANNEL, half!.ts)!)).toContain(INTERRUPTED_ANSWER);
    const answers = thread().filter((message) => message.metadata?.event_type === "agent_answer");
    expect(answers.map(shownText)).toEqual([ANSWER]);
    expect(Number(answers[0]!.ts)).toBeGreaterThan(Number(half!.ts));
    expect(thread().filter((message) => JSON.stringify(message.blocks ?? []).includes(FEEDBACK_UP_ACTION))).toHaveLength(1);
    expect(thread().filter((message) => shownText(message) === ANSWER)).toHaveLength(1);
  }, 60_000);
});

describe("a stream Slack started as the bot was killed survives the restart", () => {
  const answersStream = (args: Record<string, unknown>) => args.task_display_mode === undefined;
  const tracesStream = (args: Record<string, unknown>) => args.task_display_mode === "timeline";
  it.each([
    ["the answer's stream", "answer" as const, answersStream],
    ["the step trace's stream", "tool" as const, tracesStream],
  ])(
    "%s, started by Slack before the bot heard its id: the next process stops it, and answers once",
    async (_name, steps, starts) => {
      // Slack starts the stream and never answers: the killed process never learnt the message's id.
      slack.fail("chat.startStream", { appliedThenHang: true, matching: starts });
      const first = await startProcess(150, steps);
      await postEvent(first.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> how did the numbers go?`, ts: THREAD }));
      await slack.waitForCall("chat.startStream", (call) => starts(call.args), 20_000);
      const orphan = await killed(first);
      expect(orphan).toBeDefined();

      await startProcess(5, steps);
      await answerShown();

      expect(slack.leftStreaming()).toEqual([]);
      expect(shownText(slack.message(CHANNEL, orphan!.ts)!)).toContain("(interrupted)");
      const answers = thread().filter((message) => message.metadata?.event_type === "agent_answer");
      expect(answers.map(shownText)).toEqual([ANSWER]);
    },
    60_000,
  );
});
