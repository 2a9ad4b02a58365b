// What the approval tests share: a service per test on its own SQLite file (or the test Redis),
// closed after each test (per-test.ts), and helpers that read a pause or an answer out of a result.
import { dataInside } from "../../src/agent/context/data-blocks.js";
import { afterAll, beforeAll } from "vitest";
import { call, say } from "./model-scripted.js";
import type { AgentEvent, Model, ModelRequest, PendingApproval, RunOutcome, Tool } from "../../src/contracts/types.js";
import type { AgentService } from "../../src/runs/api/agent-service.js";
import type { DecisionResult } from "../../src/runs/api/decision-request.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import type { WorkQueue } from "../../src/runs/queue/work-queue.js";
import { usePerTest, type PerTest } from "./per-test.js";
import { startRedisServer, type RedisServer } from "./redis-server.js";
import { redisAvailable } from "./redis-suite.js";
import { startService } from "./service-harness.js";
import { contentText } from "../../src/agent/content.js";

let perTest: PerTest | undefined;
let redis: RedisServer | undefined;
let counter = 0;

/** Registers the hooks that give each test file its folder (and Redis, where available). */
export function useApprovalStores(): void {
  perTest = usePerTest();
  beforeAll(async () => {
    if (redisAvailable) redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });
}

const current = (): PerTest => {
  if (!perTest) throw new Error("call useApprovalStores() at the top of the test file");
  return perTest;
};

export const nextId = () => ++counter;
export const sqliteUrl = () => current().sqliteUrl();
export const redisUrl = () => redis!.url;
/** Closes a service after the test. */
export const closeAfter = <T extends { close(): Promise<void> }>(opened: T): T => current().closeAfter(opened);
/** Closes a service now, to start another on its store as after a restart. */
export const closeNow = (opened: { close(): Promise<void> }): Promise<void> => current().closeNow(opened);

export async function harness(
  model: Model,
  options: {
    tools?: Tool[];
    env?: Record<string, string>;
    clock?: () => number;
    storeUrl?: string;
    wrapStore?: (store: KeyValueStore) => KeyValueStore;
    queue?: WorkQueue;
    approvers?: readonly string[];
    expired?: Parameters<typeof startService>[0]["expired"];
    /** False: the test attaches its presenters first and starts the service itself. */
    start?: boolean;
  } = {},
) {
  const started = await startService({
    model,
    storeUrl: options.storeUrl ?? sqliteUrl(),
    tools: options.tools,
    env: options.env,
    clock: options.clock,
    wrapStore: options.wrapStore,
    queue: options.queue,
    ...(options.approvers ? { approvers: options.approvers } : {}),
    ...(options.expired ? { expired: options.expired } : {}),
    ...(options.start === false ? { start: false } : {}),
  });
  return closeAfter(started);
}

export function pendingOf(outcome: RunOutcome): PendingApproval {
  if (outcome.status !== "paused") throw new Error(`expected a pause, got ${outcome.status}`);
  return outcome.pending;
}

/** The run's next pause, after a decision that let it go on to its next write. */
export function nextPauseOf(result: DecisionResult): PendingApproval {
  if (result.kind !== "resumed" || !result.outcome) throw new Error(`expected the run to go on, got ${result.kind}`);
  return pendingOf(result.outcome);
}

/** Alice (the requester `originFor` gives by default) decides the paused call, as her click does. */
export function aliceDecides(
  service: Pick<AgentService, "decide">,
  pending: Pick<PendingApproval, "runId" | "callId">,
  decision: "approve" | "deny",
  sink: (event: AgentEvent) => void = () => {},
): Promise<DecisionResult> {
  return service.decide({ runId: pending.runId, callId: pending.callId, decision, decidedBy: { id: "alice" } }, sink);
}

export function answerOf(result: DecisionResult): string {
  if ((result.kind !== "resumed" && result.kind !== "expired") || result.outcome?.status !== "answered")
    throw new Error(`expected an answer, got ${result.kind}`);
  return result.outcome.answer;
}

export const writeThenAnswer = (answer: string) => [
  call("post_note", { text: "hello team" }),
  // The scripted model reads the write's result inside its data block, as a model reads it.
  (request: ModelRequest) => say(`${answer} (${dataInside(contentText(request.messages.at(-1)?.content ?? null))})`),
];
