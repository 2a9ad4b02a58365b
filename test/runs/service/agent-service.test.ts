import { describe, expect, it } from "vitest";
import { say, ScriptedModel } from "../../support/model-scripted.js";
import type { Model, ModelRequest } from "../../../src/contracts/types.js";
import { createAgentService } from "../../../src/runs/service/create-agent-service.js";
import { loadConfig } from "../../../src/config.js";
import { openStore } from "../../../src/memory/keyv-store.js";
import { capturingLogger } from "../../support/capturing-logger.js";
import { until } from "../../support/until.js";
import { startRedisServer } from "../../support/redis-server.js";
import { describeWithRedis } from "../../support/redis-suite.js";
import { originFor, startService } from "../../support/service-harness.js";
import { contentText } from "../../../src/agent/content.js";
import { usePerTest } from "../../support/per-test.js";

const { sqliteUrl, closeAfter } = usePerTest();
const lastUser = (request: ModelRequest) =>
  contentText([...request.messages].reverse().find((message) => message.role === "user")?.content ?? "");
const isExtraction = (request: ModelRequest) => request.responseFormat === "json_object";

/** Deterministic gibberish: facts made from it are far from each other, so none is a near duplicate. */
function distinctFact(seed: number): string {
  let state = seed * 2654435761;
  const letter = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return String.fromCharCode(97 + (state % 26));
  };
  return Array.from({ length: 5 }, () => Array.from({ length: 7 }, letter).join("")).join(" ");
}

/** Answers every question with "answer to <question>"; extracts one distinct fact per question number. */
function echoModel() {
  return new ScriptedModel([], {
    whenExhausted: (request) => {
      if (isExtraction(request)) {
        const number = Number(/(\d+)/.exec(lastUser(request))?.[1] ?? 0);
        return say(JSON.stringify({ facts: [distinctFact(number)] }));
      }
      return say(`answer to ${lastUser(request)}`);
    },
  });
}

async function harness(model: ScriptedModel, env: Record<string, string> = {}) {
  const started = await startService({ model, storeUrl: sqliteUrl(), env });
  closeAfter(started);
  return started;
}

describe("the conversation runner", () => {
  it("two messages in quick succession: the second run sees the first's answer", async () => {
    const model = echoModel();
    const { service, sink } = await harness(model);
    const origin = originFor("alice", "console:follow-up");
    const [first, second] = await Promise.all([
      service.ask({ origin, text: "first question" }, sink),
      service.ask({ origin, text: "second question" }, sink),
    ]);
    expect(first).toMatchObject({ status: "answered", answer: "answer to first question" });
    expect(second).toMatchObject({ status: "answered", answer: "answer to second question" });
    const secondRequest = model.requests.find((request) => lastUser(request) === "second question")!;
    expect(secondRequest.messages.map((message) => message.content)).toEqual(
      expect.arrayContaining(["first question", "answer to first question"]),
    );
  });

  it("keeps conversations apart", async () => {
    const model = echoModel();
    const { service, sink } = await harness(model);
    await service.ask({ origin: originFor("alice", "console:a"), text: "secret of a" }, sink);
    await service.ask({ origin: originFor("bob", "console:b"), text: "question of b" }, sink);
    const requestB = model.requests.find((request) => lastUser(request) === "question of b")!;
    expect(requestB.messages.some((message) => message.content === "secret of a")).toBe(false);
  });

  it("remembers facts after the reply and recalls them into the next run's note", async () => {
    const model = echoModel();
    const { service, sink } = await harness(model, { MEMORY_EXTRACT_FACTS: "true" });
    const origin = originFor("alice", "console:facts");
    await service.ask({ origin, text: "I am working on project 42" }, sink);
    await until(async () => (await service.memory.facts(origin.conversationKey)).length === 1, "the fact to be stored");
    await service.ask({ origin, text: "what about project 42?" }, sink);
    // The run's note, right before the question: facts change per run, so they come after what stays the same.
    const system = model.requests
      .filter((request) => !isExtraction(request))
      .at(-1)!
      .messages.at(-2)!.content!;
    expect(system).toContain("Remembered facts");
    expect(system).toContain(distinctFact(42));
    // The second answer's extraction may add a fact too: forget waits for it, so none comes back after.
    expect((await service.memory.forget(origin.conversationKey)).facts).toBeGreaterThanOrEqual(1);
    expect(await service.memory.facts(origin.conversationKey)).toEqual([]);
  });

  it("100 runs in one conversation with end-of-run writes lose and duplicate no fact", async () => {
    const model = echoModel();
    const { service, sink } = await harness(model, { MEMORY_EXTRACT_FACTS: "true", MEMORY_MAX_FACTS: "500" });
    const origin = originFor("alice", "console:hundred");
    await Promise.all(Array.from({ length: 100 }, (_, index) => service.ask({ origin, text: `question ${1000 + index}` }, sink)));
    await until(async () => (await service.memory.facts(origin.conversationKey)).length >= 100, "100 facts", 15_000);
    await service.close();
    const facts = (await service.memory.facts(origin.conversationKey)).map((fact) => fact.text).sort();
    expect(facts).toEqual(Array.from({ length: 100 }, (_, index) => distinctFact(1000 + index)).sort());
  });

  it("a corrupted stored record is skipped with a warning and the run still replies", async () => {
    const model = echoModel();
    const { service, sink, store } = await harness(model);
    const origin = originFor("alice", "console:corrupt");
    await store.set(`history:${origin.conversationKey}`, [{ user: 42 }, "garbage", { user: "kept", assistant: "yes", at: 1 }]);
    await store.set(`facts:${origin.conversationKey}`, { not: "facts" });
    const outcome = await service.ask({ origin, text: "hello" }, sink);
    expect(outcome).toMatchObject({ status: "answered", answer: "answer to hello" });
    expect(model.requests[0]!.messages.map((message) => message.content)).toContain("kept");
  });
});

describeWithRedis("a Redis store that goes away mid-run", () => {
  it("logs a clear line and the run still replies", async () => {
    const redis = await startRedisServer();
    const { logger, lines } = capturingLogger();
    const config = loadConfig({ STORE_URL: redis.url, MEMORY_EXTRACT_FACTS: "false" });
    const store = await openStore(config.storeUrl, logger);
    let calls = 0;
    const model: Model = {
      name: "kills-redis",
      async complete() {
        if (++calls === 2) await redis.stop();
        return { content: `reply ${calls}`, toolCalls: [] };
      },
    };
    const service = createAgentService({ config, model, store, logger });
    await service.start();
    const origin = originFor("alice", "console:redis");
    expect(await service.ask({ origin, text: "before" }, () => {})).toMatchObject({ answer: "reply 1" });
    expect(await service.ask({ origin, text: "during" }, () => {})).toMatchObject({ status: "answered", answer: "reply 2" });
    await until(
      () => lines.some((line) => line.level === 40 && /could not save the turn/.test(line.msg)),
      "the failed history write to be logged",
    );
    expect(await service.ask({ origin, text: "after" }, () => {})).toMatchObject({ status: "answered", answer: "reply 3" });
    expect(lines.some((line) => line.level === 40 && /could not load the conversation history/.test(line.msg))).toBe(true);
    await service.close();
    await store.close();
  });
});
