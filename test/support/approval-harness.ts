// What the approval tests share: a service per test on its own SQLite file (or the test Redis),
// closed after each test, and helpers that read a pause or an answer out of a result.
import { afterAll, afterEach, beforeAll } from "vitest";
import { call, say, type ScriptedModel } from "./model-scripted.js";
import type { ModelRequest, PendingApproval, RunOutcome, Tool } from "../../src/contracts/types.js";
import type { DecisionResult } from "../../src/runs/api/decision-request.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import { temporaryFolder } from "./temporary-folder.js";
import { startRedisServer, type RedisServer } from "./redis-server.js";
import { redisAvailable } from "./redis-suite.js";
import { startService, type ServiceHarness } from "./service-harness.js";
import { contentText } from "../../src/agent/content.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let redis: RedisServer;
let counter = 0;
/** The services still open; a test that closes one itself takes it out. */
export const open: ServiceHarness[] = [];

/** Registers the hooks that give each test file its folder (and Redis, where available). */
export function useApprovalStores(): void {
  beforeAll(async () => {
    folder = await temporaryFolder();
    if (redisAvailable) redis = await startRedisServer();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((harness) => harness.close()));
  });
  afterAll(async () => {
    await redis?.stop();
    await folder.remove();
  });
}

export const nextId = () => ++counter;
export const sqliteUrl = () => `sqlite://${folder.path}/approvals-${nextId()}.sqlite`;
export const redisUrl = () => redis.url;

export async function harness(
  model: ScriptedModel,
  options: {
    tools?: Tool[];
    env?: Record<string, string>;
    clock?: () => number;
    storeUrl?: string;
    wrapStore?: (store: KeyValueStore) => KeyValueStore;
    approvers?: readonly string[];
    expired?: Parameters<typeof startService>[0]["expired"];
  } = {},
) {
  const started = await startService({
    model,
    storeUrl: options.storeUrl ?? sqliteUrl(),
    tools: options.tools,
    env: options.env,
    clock: options.clock,
    wrapStore: options.wrapStore,
    ...(options.approvers ? { approvers: options.approvers } : {}),
    ...(options.expired ? { expired: options.expired } : {}),
  });
  open.push(started);
  return started;
}

export function pendingOf(outcome: RunOutcome): PendingApproval {
  if (outcome.status !== "paused") throw new Error(`expected a pause, got ${outcome.status}`);
  return outcome.pending;
}

export function answerOf(result: DecisionResult): string {
  if ((result.kind !== "resumed" && result.kind !== "expired") || result.outcome?.status !== "answered")
    throw new Error(`expected an answer, got ${result.kind}`);
  return result.outcome.answer;
}

export const writeThenAnswer = (answer: string) => [
  call("post_note", { text: "hello team" }),
  (request: ModelRequest) => say(`${answer} (${contentText(request.messages.at(-1)?.content ?? null)})`),
];
