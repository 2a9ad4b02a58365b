// What a checkpoint costs per step: the save after step 30 of a run that carries 100 history
// turns and 2,000-token observations, on SQLite and Redis (when installed). Each save writes only
// what the step added; the full state's size is printed for comparison.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emptyGuardCounters, type RunState } from "../src/agent/loop/run-state.js";
import { TokenCounter } from "../src/tokens/token-counter.js";
import type { ChatMessage, StepRecord } from "../src/contracts/types.js";
import { silentLogger } from "../src/logger.js";
import { openStore } from "../src/memory/keyv-store.js";
import { createCheckpointStore } from "../src/runs/worker/checkpoint-store.js";
import { redisServerInstalled, startRedisServer } from "../test/support/redis-server.js";

const HISTORY_TURNS = 100;
const STEP = 30;
const OBSERVATION_TOKENS = 2_000;
const RUNS = 60;

function observationText(): string {
  const counter = TokenCounter.forModel("gpt-4o-mini");
  const sentence = "The service returned row 4812 with status active, owner ops-team, and a note about the last deploy. ";
  let text = sentence.repeat(120);
  while (counter.countText(text) > OBSERVATION_TOKENS) text = text.slice(0, -sentence.length);
  return text;
}

/** The run's state after `steps` steps, each one calculator call whose result is a full observation. */
function buildState(
  runId: string,
  steps: number,
  observation: string,
  base: ChatMessage[],
): { messages: ChatMessage[]; records: StepRecord[]; state: () => RunState } {
  const messages = [...base];
  const records: StepRecord[] = [];
  const add = (index: number) => {
    const callId = `call_${index}`;
    messages.push({ role: "assistant", content: null, toolCalls: [{ id: callId, name: "lookup", arguments: `{"row":${index}}` }] });
    messages.push({ role: "tool", toolCallId: callId, content: observation });
    records.push({
      index,
      startedAt: 1,
      durationMs: 2,
      text: null,
      calls: [
        {
          callId,
          tool: "lookup",
          args: `{"row":${index}}`,
          signature: `lookup#${index}`,
          outcome: "ok",
          result: observation,
          observation,
          durationMs: 1,
        },
      ],
    });
  };
  for (let index = 1; index <= steps; index++) add(index);
  return {
    messages,
    records,
    state: () => ({
      version: 1,
      runId,
      origin: { surface: "console", conversationKey: `bench:${runId}`, requester: { id: "bench" }, place: {} },
      question: "q",
      messages,
      steps: records,
      guards: emptyGuardCounters,
      usage: { promptTokens: 0, completionTokens: 0 },
      elapsedMs: 1,
    }),
  };
}

async function measure(label: string, storeUrl: string): Promise<void> {
  const store = await openStore(storeUrl, silentLogger);
  const checkpoints = createCheckpointStore(store);
  const observation = observationText();
  const base: ChatMessage[] = [{ role: "system", content: "You are a careful assistant." }];
  for (let turn = 0; turn < HISTORY_TURNS; turn++)
    base.push(
      { role: "user", content: `question ${turn} about the deploy schedule` },
      { role: "assistant", content: `answer ${turn}: the deploy runs at 10:30 on weekdays` },
    );
  const times: number[] = [];
  let fullBytes = 0;
  for (let run = 0; run < RUNS; run++) {
    const runId = `bench${run}`;
    const built = buildState(runId, STEP - 1, observation, base);
    const writer = checkpoints.writer(runId);
    await writer.save(built.state());
    const callId = `call_${STEP}`;
    built.messages.push(
      { role: "assistant", content: null, toolCalls: [{ id: callId, name: "lookup", arguments: `{"row":${STEP}}` }] },
      { role: "tool", toolCallId: callId, content: observation },
    );
    built.records.push({
      index: STEP,
      startedAt: 1,
      durationMs: 2,
      text: null,
      calls: [
        { callId, tool: "lookup", args: "{}", signature: "lookup#30", outcome: "ok", result: observation, observation, durationMs: 1 },
      ],
    });
    const started = performance.now();
    await writer.save(built.state());
    times.push(performance.now() - started);
    fullBytes = JSON.stringify(built.state()).length;
    await checkpoints.remove(runId);
  }
  times.sort((a, b) => a - b);
  const at = (share: number) => times[Math.min(times.length - 1, Math.floor(share * times.length))]!.toFixed(3);
  console.log(`${label.padEnd(6)} | ${at(0.5).padStart(9)} | ${at(0.9).padStart(6)} | ${(fullBytes / 1024).toFixed(0).padStart(13)} KB`);
  await store.close();
}

export async function run(): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), "bench-checkpoint-"));
  try {
    console.log(`checkpoint after step ${STEP}: ${HISTORY_TURNS} history turns, ${OBSERVATION_TOKENS}-token observations, ${RUNS} runs`);
    console.log("store  | median ms | p90 ms | full state size");
    await measure("SQLite", `sqlite://${join(folder, "checkpoint.sqlite")}`);
    if (redisServerInstalled()) {
      const server = await startRedisServer();
      try {
        await measure("Redis", server.url);
      } finally {
        await server.stop();
      }
    } else {
      console.log("(Redis skipped: redis-server is not installed)");
    }
    console.log("target: median ≤ 1 ms per step");
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
