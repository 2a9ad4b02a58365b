// How soon the person sees an answer's first words. Slack: from the first text_delta reaching a
// run's view to the first Slack call carrying it (chat.startStream / appendStream, or the
// post / chat.update of the fallback), over 100 answers, each run's first words coming 0–300 ms
// after its step started. Target: p99 ≤ 250 ms. Discord: from the first text_delta to the first
// edit of the reply carrying it, over 20 answers whose first words come 0–1.2 s after the step
// started (the reply's edits are one second apart, its first one included). Target: ≤ 1.1 s.
// The loop does not stream yet: the events are fed to the run view as it will send them, so this
// measures the surfaces, from the moment the view has the text. Real Slack, Discord and model
// latencies come on top; the fakes answer on 127.0.0.1.
import { setTimeout as sleep } from "node:timers/promises";
import type { RunView } from "../src/adapters/core/run-view.js";
import { DEFAULT_STREAM_LIMITS } from "../src/adapters/slack/stream-trace.js";
import { discordRunView } from "../test/support/discord-view-kit.js";
import { FakeDiscord } from "../test/support/fake-discord.js";
import { startFakeSlack, type RecordedCall } from "../test/support/fake-slack.js";
import { slackRunView } from "../test/support/slack-view-kit.js";
import { answered, delta, started } from "../test/support/stream-events.js";
import { percentile } from "./support/stats.js";

const SLACK_ANSWERS = 100;
const DISCORD_ANSWERS = 20;
const SLACK_TARGET_P99_MS = 250;
const DISCORD_TARGET_MS = 1_100;
const FIRST_WORD = "Forecast:";
const REST = " clear skies all day, with a light wind from the west in the afternoon.";

/** The time from the first words reaching `view` to `carried` seeing them at the platform, once the run waited `beforeMs`. */
async function firstWordsLatency(view: RunView, runId: string, beforeMs: number, carried: () => Promise<unknown>): Promise<number> {
  view.sink(started(runId, 1));
  await sleep(beforeMs);
  const seen = carried();
  const sent = performance.now();
  view.sink(delta(runId, 1, FIRST_WORD));
  view.sink(delta(runId, 1, " clear"));
  await seen;
  return performance.now() - sent;
}

const carriesFirstWords = (call: RecordedCall) => JSON.stringify(call.args).includes(FIRST_WORD);

async function slackFigures(): Promise<number[]> {
  const fake = await startFakeSlack();
  const latencies: number[] = [];
  const finishing: Promise<unknown>[] = [];
  for (let index = 0; index < SLACK_ANSWERS; index++) {
    const runId = `bench-slack-${index}`;
    const { view } = slackRunView(fake, { limits: DEFAULT_STREAM_LIMITS });
    const seen = fake.calls.length;
    // A stream starts with the first words it carries.
    const carried = () =>
      fake.waitForCall("chat.startStream", (call) => fake.calls.indexOf(call) >= seen && carriesFirstWords(call), 10_000);
    latencies.push(await firstWordsLatency(view, runId, Math.random() * 300, carried));
    finishing.push(view.finish(answered(runId, `${FIRST_WORD}${REST}`)));
  }
  await Promise.all(finishing);
  await fake.close();
  return latencies;
}

async function discordFigures(): Promise<number[]> {
  const fake = await FakeDiscord.start();
  const alice = { id: "100000000000000001", username: "alice" };
  fake.setMember(alice);
  const latencies: number[] = [];
  const finishing: Promise<unknown>[] = [];
  for (let index = 0; index < DISCORD_ANSWERS; index++) {
    const runId = `bench-discord-${index}`;
    const { view, webhookMessages } = await discordRunView(fake, alice);
    const carried = () =>
      fake.waitForCall(
        "PATCH",
        new RegExp(`^${webhookMessages}/`),
        (call) => String(call.body?.content ?? "").includes(FIRST_WORD),
        10_000,
      );
    latencies.push(await firstWordsLatency(view, runId, Math.random() * 1_200, carried));
    finishing.push(view.finish(answered(runId, `${FIRST_WORD}${REST}`)));
  }
  await Promise.all(finishing);
  await fake.close();
  return latencies;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

export async function run(): Promise<void> {
  const slack = await slackFigures();
  const slackP99 = percentile(slack, 99);
  console.log(
    `Slack, first words to the first call carrying them (${slack.length} answers): p50 ${ms(percentile(slack, 50))}, p99 ${ms(slackP99)}, max ${ms(Math.max(...slack))}`,
  );
  console.log(`target p99 ≤ ${SLACK_TARGET_P99_MS} ms: ${slackP99 <= SLACK_TARGET_P99_MS ? "met" : "NOT met"}`);
  const discord = await discordFigures();
  const worst = Math.max(...discord);
  console.log(
    `Discord, first words to the first edit carrying them (${discord.length} answers): p50 ${ms(percentile(discord, 50))}, p99 ${ms(percentile(discord, 99))}, max ${ms(worst)}`,
  );
  console.log(`target ≤ ${DISCORD_TARGET_MS} ms: ${worst <= DISCORD_TARGET_MS ? "met" : "NOT met"}`);
}
