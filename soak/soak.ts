// `npm run soak -- --minutes 10 --seed N`: three bot processes (Slack in HTTP mode, BOT_ROLE
// all) on one Redis, against the fake Slack, the fake model server and the MCP ledger, with
// conversations flowing for the given minutes while the faults of the seed's schedule hit them;
// then the last answers are waited for and the checks run; one message in ten carries a hostile
// file, and each process's peak memory (with its file readers) is printed. Exits 0 when every check held, 1
// when one did not (the seed is printed to run it again), 2 for bad options. The counts are
// the last line, as JSON.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startFakeOpenAI } from "../test/support/fake-openai-server.js";
import { shownText, startFakeSlack, type FakeSlack } from "../test/support/fake-slack.js";
import { SLACK_BOT_TOKEN } from "../test/support/fake-slack-files.js";
import { faultSchedule, runChaos } from "./chaos.js";
import { awaitingAnswers, runChecks, type StoredLeftovers } from "./checks.js";
import { TALK_CHANNEL } from "./plans.js";
import type { Outcome } from "./taken-up.js";
import { startFleet } from "./fleet.js";
import { startLedger } from "./ledger.js";
import { readLeftovers } from "./leftovers.js";
import { loggedAnswers } from "./logged-answers.js";
import { createSoakModel, type SoakModel } from "./model.js";
import { observe } from "./observer.js";
import { parseSoakOptions, type SoakOptions } from "./options.js";
import { startRedisHost } from "./redis-host.js";
import { printReport } from "./report.js";
import { hostileAttachments } from "./hostile-files.js";
import { watchMemory } from "./memory-watch.js";
import { createTraffic, type SentMessage } from "./traffic.js";

/** After the traffic's end: the last answers, and a stalled conversation's takeover (lock 30 s + stall check 15 s), come within this. */
const DRAIN_MS = 150_000;
/** A replayed tail (a second answer) shows up after a takeover: the end waits this long after the last process fault. */
const AFTER_LAST_FAULT_MS = 60_000;
const MODEL_REPLIES_BATCH = 5_000;
/** Past the traffic and the drain, the soak gives up on itself: something it waits for never came. */
const WATCHDOG_SLACK_MS = 8 * 60_000;

function options(): SoakOptions {
  try {
    return parseSoakOptions(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(2);
  }
}

const log = (line: string): void => console.log(`[soak] ${line}`);

async function main(): Promise<boolean> {
  const chosen = options();
  const folder = mkdtempSync(join(tmpdir(), `soak-${chosen.seed}-`));
  mkdirSync(join(folder, "redis"));
  log(
    `seed ${chosen.seed}, ${chosen.minutes} min, ${chosen.processes} processes, ${chosen.conversations} conversations at once; logs in ${folder}`,
  );

  const redis = await startRedisHost(join(folder, "redis"));
  const slack = await startFakeSlack();
  const ledger = await startLedger(folder);
  const modelServer = await startFakeOpenAI();
  // Seconds since the traffic started (since the soak started, until then): deaths, faults, acks and model replies are stamped with it.
  let zero = performance.now();
  const clock = () => Math.round((performance.now() - zero) / 100) / 10;
  let channelOf: (n: number) => string | undefined = () => undefined;
  const model = createSoakModel(chosen.seed, (n) => channelOf(n), clock);
  let queued = 0;
  const topUp = () => {
    // The server answers each request with the next queued reply; the soak's is always the same function.
    if (queued - modelServer.requests.length > MODEL_REPLIES_BATCH / 2) return;
    modelServer.enqueue(...Array.from({ length: MODEL_REPLIES_BATCH }, () => model.reply));
    queued += MODEL_REPLIES_BATCH;
  };
  topUp();
  const topUps = setInterval(topUp, 1_000);

  const startedAt = performance.now();
  const fleet = await startFleet(
    chosen.processes,
    {
      slackApiUrl: slack.apiUrl,
      openaiBaseUrl: modelServer.baseUrl,
      storeUrl: redis.url,
      // The fake's file host serves only this token, as Slack's serves only the bot's.
      env: {
        MCP_CONFIG: ledger.configFile,
        LOG_LEVEL: "info",
        SLACK_BOT_TOKEN,
        // The talk channel steers (talk.ts); a burst there is its question and two replies sent right after it.
        BOT_SETTINGS: talkSettings(folder),
        MESSAGE_DEBOUNCE_MS: "300",
      },
    },
    folder,
    clock,
  );
  const stopNow = (why: string, code: number) => {
    log(why);
    fleet.killNow();
    process.exit(code);
  };
  process.once("SIGINT", () => stopNow("interrupted; the bots were killed", 130));
  process.once("SIGTERM", () => stopNow("terminated; the bots were killed", 143));
  process.once("exit", () => fleet.killNow());
  setTimeout(
    () =>
      stopNow(
        `the soak did not finish within ${chosen.minutes} min + ${WATCHDOG_SLACK_MS / 60_000} min; seed ${chosen.seed} FAILED; logs in ${folder}`,
        1,
      ),
    chosen.minutes * 60_000 + WATCHDOG_SLACK_MS,
  ).unref();
  log(`${chosen.processes} bots up after ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
  const observed = observe(slack);
  const polling = setInterval(() => observed.poll(), 100);
  const memory = watchMemory(fleet);
  const hostile = await hostileAttachments(chosen.seed, slack);
  const traffic = createTraffic({
    seed: chosen.seed,
    slack,
    fleet,
    observed,
    conversations: chosen.conversations,
    clock,
    filesFor: hostile.filesFor,
  });
  channelOf = (n) => traffic.byN.get(n)?.channel;

  const durationMs = chosen.minutes * 60_000;
  const trafficStart = performance.now();
  zero = trafficStart;
  const schedule = faultSchedule(chosen.seed, durationMs, chosen.skip);
  const lastProcessFault = Math.max(0, ...schedule.filter((fault) => fault.kind !== "junk").map((fault) => fault.atMs));
  const [chaos] = await Promise.all([
    runChaos(schedule, trafficStart, { slack, fleet, redis, log }),
    traffic.run(trafficStart + durationMs),
  ]);
  log(`traffic over after ${((performance.now() - trafficStart) / 1000).toFixed(0)} s; waiting for the last answers`);

  await fleet.allUp(30_000);
  // The conversations waited for their own answers already (clicking what was left to click): this bounds the whole end.
  const drainUntil = trafficStart + durationMs + DRAIN_MS;
  const quietFrom = trafficStart + lastProcessFault + AFTER_LAST_FAULT_MS;
  let leftovers: StoredLeftovers & { readonly outcomes: ReadonlyMap<string, Outcome> } = {
    unfinishedIntake: [],
    pendingApprovals: [],
    outcomes: new Map(),
  };
  for (;;) {
    observed.poll();
    leftovers = await readLeftovers(redis.url).catch(() => leftovers);
    const unanswered = awaitingAnswers(traffic.messages, observed, leftovers.outcomes);
    const settled = unanswered === 0 && leftovers.unfinishedIntake.length === 0 && leftovers.pendingApprovals.length === 0;
    if ((settled && performance.now() >= quietFrom) || performance.now() >= drainUntil) break;
    await sleep(2_000);
  }
  observed.poll();
  clearInterval(polling);
  clearInterval(topUps);
  for (const line of memory.stop()) log(line);

  const approvedAttempts = [...observed.writes.values()].flat();
  const counts = {
    minutes: chosen.minutes,
    processes: chosen.processes,
    faults: chaos.faults,
    junk: { requests: chaos.junk.requests, byStatus: chaos.junk.byStatus },
    traffic: { ...traffic.counts, hostileFiles: hostile.sent.length },
    replies: {
      answers: [...observed.answers.values()].reduce((sum, posts) => sum + posts.length, 0),
      storageTrouble: [...observed.storageTrouble.values()].reduce((sum, posts) => sum + posts.length, 0),
      apologies: [...observed.apologies.values()].reduce((sum, posts) => sum + posts.length, 0),
    },
    writes: {
      approvedApplied: approvedAttempts.filter((attempt) => attempt.status === 200 && attempt.error === undefined).length,
      approvedRefused: approvedAttempts.filter((attempt) => attempt.status !== 200 || attempt.error !== undefined).length,
      allowed: [...ledger.writes.values()].reduce((sum, count) => sum + count, 0),
    },
    slackCallsRefused: observed.refused.count,
    // What the talk conversations made of their messages: taken up into a run, or deleted.
    takenUp: Object.fromEntries(
      ["merged", "steered", "deleted"].map((result) => [
        result,
        [...leftovers.outcomes.values()].filter((outcome) => outcome.result === result).length,
      ]),
    ),
    edits: traffic.edits.filter((edit) => edit.ackedAt !== undefined).length,
    modelCalls: modelServer.requests.length,
    deaths: fleet.deaths.length,
    startFailures: fleet.startFailures.length,
    terms: fleet.terms.map((term) => ({ code: term.code, ms: term.tookMs })),
  };
  const kinds = Object.entries(chaos.junk.byKind).sort(([a], [b]) => a.localeCompare(b));
  if (kinds.length > 0) log(`junk answered: ${kinds.map(([kind, count]) => `${kind} ×${count}`).join(", ")}`);
  for (const failure of fleet.startFailures)
    log(`bot ${failure.slot} did not start at ${failure.atSeconds} s: ${failure.reason.split("\n").at(-1)}`);

  const leftStreaming = slack
    .leftStreaming()
    .map((message) => ({ channel: message.channel, threadTs: message.thread_ts, text: shownText(message) }));
  writeJournals(folder, slack, model, traffic.messages);
  await fleet.close();
  await Promise.all([ledger.close(), modelServer.close(), slack.close()]);
  await redis.close();
  const results = runChecks({
    messages: traffic.messages,
    observed,
    ledgerWrites: ledger.writes,
    leftovers,
    deaths: fleet.deaths,
    loggedAnswers: loggedAnswers(folder),
    hostileFiles: hostile.sent,
    modelRequests: modelServer.requests.map((request) => JSON.stringify(request.body.messages)),
    leftStreaming,
    outcomes: leftovers.outcomes,
    edits: traffic.edits,
  });
  const passed = printReport(results, chosen, counts, folder);
  if (passed) rmSync(folder, { recursive: true, force: true });
  return passed;
}

/** The settings file the bots read: the talk channel steers. */
function talkSettings(folder: string): string {
  const path = join(folder, "bot.settings.json");
  writeFileSync(path, JSON.stringify({ channels: { [TALK_CHANNEL]: { concurrentMessages: "steer" } } }));
  return path;
}

/** What happened, for reading a failure next to the bots' logs: every Slack call, every model reply, every message sent. */
function writeJournals(folder: string, slack: FakeSlack, model: SoakModel, messages: readonly SentMessage[]): void {
  const calls = slack.calls.map((call, seq) =>
    JSON.stringify({
      seq,
      method: call.method,
      status: call.status,
      ...(call.error ? { error: call.error } : {}),
      channel: call.args.channel,
      thread_ts: call.args.thread_ts,
      ts: call.args.ts,
      text: typeof call.args.text === "string" ? call.args.text.slice(0, 120) : undefined,
    }),
  );
  writeFileSync(join(folder, "slack-calls.jsonl"), `${calls.join("\n")}\n`);
  writeFileSync(join(folder, "model.jsonl"), `${model.journal.map((turn) => JSON.stringify(turn)).join("\n")}\n`);
  writeFileSync(join(folder, "messages.jsonl"), `${messages.map((message) => JSON.stringify(message)).join("\n")}\n`);
}

process.on("unhandledRejection", (reason) => log(`unhandled rejection in the soak itself: ${String(reason)}`));
process.exit((await main()) ? 0 : 1);
