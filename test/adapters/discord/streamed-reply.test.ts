// What the model writes, in an /ask's reply on Discord as it comes, through discord.js's REST
// client against the fake Discord (each message edited at most 5 times in 5 s, on a clock the
// test drives): a 5,000-character answer ends in three messages, none over 2,000 characters, its
// code block closed and reopened, never cut open; each message edited at most once a second;
// the person sees text before the run ends; the model's words before a tool call stay above the
// answer; and the final text is the streamed one.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RunView } from "../../../src/adapters/core/run-view.js";
import type { AgentEvent } from "../../../src/contracts/types.js";
import { discordRunView } from "../../support/discord-view-kit.js";
import { FakeDiscord, MESSAGE_MAX_CHARS, type FakeUser } from "../../support/fake-discord.js";
import { manualTime, type ManualTime } from "../../support/manual-time.js";
import { answered, delta, replied, started, toolRun, wordsOf } from "../../support/stream-events.js";

const runId = "run-discord-1";
const INTERVAL = 1_000;

let fake: FakeDiscord;
let time: ManualTime;
let alice: FakeUser;
beforeEach(async () => {
  time = manualTime(1_000_000);
  fake = await FakeDiscord.start({ clock: time.now, editLimit: { edits: 5, windowMs: 5_000 } });
  alice = { id: "100000000000000001", username: "alice" };
  fake.setMember(alice);
});
afterEach(async () => {
  await fake.close();
});

/** The bot's messages in the channel: the reply's main message first. */
const replyMessages = () => fake.messagesIn(fake.general.id).filter((message) => message.author.id === fake.bot.id);

/** Feeds the events as a model writes, `paceMs` of the test's clock apart, letting the view write between them. */
async function feed(view: RunView, events: readonly AgentEvent[], paceMs = 40): Promise<void> {
  for (const event of events) {
    view.sink(event);
    time.advance(paceMs);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A 5,000-character answer of unique lines: prose, a code block long enough to be cut across messages, prose. */
function longAnswer(): string {
  const prose = (from: number) =>
    Array.from({ length: 16 }, (_, index) => `${from + index}. The report covers the quarter's numbers, one team at a time.`).join("\n");
  const code = ["```ts", ...Array.from({ length: 40 }, (_, index) => `const total${index} = sum(rows[${index}]);`), "```"].join("\n");
  const text = `${prose(1)}\n\n${code}\n\n${prose(17)}\n\n`;
  const tail = Array.from({ length: 120 }, (_, index) => `Line ${index + 1} of the end.`).join("\n");
  return `${text}${tail}`.slice(0, 5_000).replace(/\s+$/, (space) => ".".repeat(space.length));
}

describe("an answer streamed into Discord", () => {
  it("shows a 5,000-character answer as it comes, in three messages, each edited at most once a second", async () => {
    const { view, webhookMessages } = await discordRunView(fake, alice, { clock: time, progressIntervalMs: INTERVAL });
    const answer = longAnswer();
    expect(answer.length).toBe(5_000);
    view.sink(started(runId, 1));
    // A line at a time, each shown before the next comes: the clock moves only as the writes wait out their interval.
    for (const line of answer.split(/(?<=\n)/)) {
      view.sink(delta(runId, 1, line));
      const shown = line.trim();
      if (shown !== "" && shown !== "```")
        await fake.waitForCall(["PATCH", "POST"], /\/messages|\/webhooks\//, (call) => String(call.body?.content ?? "").includes(shown));
    }
    await view.finish(answered(runId, answer));

    const messages = replyMessages();
    expect(messages).toHaveLength(3);
    for (const message of messages) {
      expect(message.content.length).toBeLessThanOrEqual(MESSAGE_MAX_CHARS);
      expect((message.content.match(/```/g) ?? []).length % 2).toBe(0);
    }
    const words$ = (text: string) =>
      text
        .replace(/```(ts)?/g, "")
        .split(/\s+/)
        .filter(Boolean);
    expect(words$(messages.map((message) => message.content).join("\n"))).toEqual(words$(answer));
    expect(JSON.stringify(messages.at(-1)!.components)).toContain(`fb:u:${runId}`);
    expect(messages.slice(0, -1).some((message) => JSON.stringify(message.components).includes("fb:u:"))).toBe(false);

    const edits = fake.calls.filter((call) => call.method === "PATCH" && call.path.startsWith(webhookMessages));
    expect(edits.every((call) => call.status === 200)).toBe(true);
    const byMessage = new Map<string, typeof edits>();
    for (const call of edits) byMessage.set(call.path, [...(byMessage.get(call.path) ?? []), call]);
    expect(byMessage.size).toBe(3);
    for (const times of byMessage.values())
      for (let index = 1; index < times.length; index++) expect(times[index]!.at - times[index - 1]!.at).toBeGreaterThanOrEqual(INTERVAL);
  });

  it("keeps the model's words before a tool call above the answer, and ends with the streamed text", async () => {
    const { view } = await discordRunView(fake, alice, { clock: time, progressIntervalMs: INTERVAL });
    const call = { id: "call_time", name: "current_time", arguments: "{}" };
    view.sink(started(runId, 1));
    await feed(view, [...wordsOf("Let me look at the clock.").map((word) => delta(runId, 1, word))]);
    await vi.waitFor(() => expect(replyMessages()[0]?.content).toContain("Let me look"));
    await feed(view, [replied(runId, 1, "Let me look at the clock.", [call]), ...toolRun(runId, 1, call, "12:00"), started(runId, 2)]);
    await feed(
      view,
      wordsOf("It is noon.").map((word) => delta(runId, 2, word)),
    );
    await view.finish(answered(runId, "It is noon."));

    const [main, ...more] = replyMessages();
    expect(more).toEqual([]);
    expect(main!.content).toBe("Let me look at the clock.\n\nIt is noon.");
  });

  it("keeps what was shown when a Stop cuts the answer, with the stop line under it", async () => {
    const { view } = await discordRunView(fake, alice, { clock: time, progressIntervalMs: INTERVAL });
    view.sink(started(runId, 1));
    await feed(
      view,
      wordsOf("The largest files are a.txt and").map((word) => delta(runId, 1, word)),
    );
    await vi.waitFor(() => expect(replyMessages()[0]?.content).toContain("The largest"));
    const stop = { guard: "stopped" as const, detail: "stop", sentence: "Stopped by alice." };
    await view.finish(answered(runId, "A summary nobody should see.", stop));
    const [main, ...more] = replyMessages();
    expect(more).toEqual([]);
    expect(main!.content).toBe("The largest files are a.txt and\n\n⚠️ Stopped by alice.");
  });

  it("shows the first text no later than one interval after the step started", async () => {
    const { view } = await discordRunView(fake, alice, { clock: time, progressIntervalMs: INTERVAL });
    view.sink(started(runId, 1));
    await vi.waitFor(() => expect(replyMessages()[0]?.content).toContain("Working"));
    const shownAt = time.now();
    view.sink(delta(runId, 1, "It is noon."));
    await vi.waitFor(() => expect(replyMessages()[0]?.content).toContain("It is noon."));
    const edit = fake.calls.filter((call) => call.method === "PATCH" && JSON.stringify(call.body).includes("It is noon.")).at(0)!;
    expect(edit.at - shownAt).toBeLessThanOrEqual(1_100);
    await view.finish(answered(runId, "It is noon."));
  });
});
