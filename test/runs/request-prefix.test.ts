// A prompt that caches within a run: through the real service and the real openai SDK against the
// fake OpenAI server, every request of a 10-step run (history, run note, tools, parallel calls,
// a reply without call ids, text before calls, an empty reply) sends the same tools and extends
// the previous request's messages byte for byte, so a server's prompt cache can reuse all of it.
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIModel } from "../../src/agent/models/model-openai.js";
import { silentLogger } from "../../src/logger.js";
import { type FakeResponse, startFakeOpenAI, textReply, toolCallReply, type FakeOpenAI } from "../support/fake-openai-server.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { startService, type ServiceHarness } from "../support/service-harness.js";

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** A reply whose calls come without ids (some local servers), and with text before them. */
function withoutIds(reply: FakeResponse, text: string): FakeResponse {
  const body = structuredClone(reply.body) as { choices: [{ message: { content: string | null; tool_calls: { id?: string }[] } }] };
  body.choices[0].message.content = text;
  for (const call of body.choices[0].message.tool_calls) delete call.id;
  return { body };
}

async function service(server: FakeOpenAI): Promise<ServiceHarness> {
  const folder = await temporaryFolder();
  closing.push(() => folder.remove());
  const model = createOpenAIModel({
    apiKey: "sk-test",
    baseUrl: server.baseUrl,
    model: "gpt-4o-mini",
    timeoutMs: 5_000,
    streamIdleMs: 5_000,
    maxRetries: 0,
    logger: silentLogger,
  });
  const harness = await startService({ model, storeUrl: `sqlite://${folder.path}/bot.sqlite`, env: { AGENT_MAX_CONSECUTIVE_ERRORS: "5" } });
  closing.push(() => harness.close());
  return harness;
}

describe("the requests of one run", () => {
  it("each extend the previous one byte for byte over 10 steps without a fold", async () => {
    const server = await startFakeOpenAI();
    closing.push(() => server.close());
    server.enqueue(
      textReply("An earlier answer, now part of the history."),
      withoutIds(
        toolCallReply([
          { name: "calculator", args: { expression: "1+1" } },
          { name: "current_time", args: {} },
        ]),
        "Let me look.",
      ),
      toolCallReply([{ name: "calculator", args: { expression: "2*21" }, id: "call_same" }]),
      toolCallReply([{ name: "calculator", args: { expression: "3*3" }, id: "call_same" }]),
      toolCallReply([{ name: "no_such_tool", args: {} }]),
      toolCallReply([{ name: "calculator", args: "{not json" }]),
      { body: { choices: [{ message: { role: "assistant", content: "" } }] } },
      toolCallReply([{ name: "calculator", args: { expression: "9*9" } }]),
      toolCallReply([{ name: "current_time", args: { timezone: "Europe/Paris" } }]),
      toolCallReply([{ name: "calculator", args: { expression: "6*7" } }]),
      textReply("Done: 42."),
    );
    const harness = await service(server);
    const origin = { surface: "console" as const, conversationKey: "console:prefix", requester: { id: "alice" }, place: {} };
    await harness.service.ask({ origin, text: "first question" }, () => {});
    const outcome = await harness.service.ask({ origin, text: "work it out" }, () => {});
    expect(outcome).toMatchObject({ status: "answered", answer: "Done: 42." });
    const run = server.requests.slice(1).map((request) => request.body as { messages: unknown[]; tools: unknown[] });
    expect(run).toHaveLength(10);
    // The history of the earlier run is in every request of this one.
    expect(JSON.stringify(run[0]!.messages)).toContain("An earlier answer, now part of the history.");
    for (const [step, request] of run.entries()) {
      const next = run[step + 1];
      if (!next) break;
      expect(JSON.stringify(next.tools), `the tools of step ${step + 2}`).toBe(JSON.stringify(request.tools));
      const sent = request.messages.map((message) => JSON.stringify(message));
      const sentNext = next.messages.map((message) => JSON.stringify(message));
      expect(sentNext.slice(0, sent.length), `step ${step + 2} extends step ${step + 1}`).toEqual(sent);
      expect(sentNext.length).toBeGreaterThan(sent.length);
    }
  });
});
