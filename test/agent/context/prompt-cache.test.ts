// A prompt that caches: what is stable comes first and stays byte-identical from run to run
// (tool schemas by name, instructions, surface style, history), and what changes per run (the
// time, the facts recalled, the question) comes last. Measured as the run record's prefix share:
// the tokens of a run's first request that begin exactly as the previous run's first request.
import { z } from "zod";
import { afterEach, describe, expect, it } from "vitest";
import { say, ScriptedModel } from "../../support/model-scripted.js";
import { compactOlderTurns } from "../../../src/agent/context/context-window.js";
import { TokenCounter } from "../../../src/tokens/token-counter.js";
import type { ChatMessage, Tool } from "../../../src/contracts/types.js";
import { originFor } from "../../support/service-harness.js";
import { useServiceHarnesses } from "../../support/service-harness.js";
import { startRecordedService, type RecordsHarness } from "../../support/records-harness.js";

const services = useServiceHarnesses();
const open: RecordsHarness[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((harness) => harness.close()));
});

/** Three tools with descriptions and parameters of the size real ones have (with the two built in: five). */
const tools: Tool[] = [
  {
    name: "search_docs",
    description:
      "Searches the team's documentation (runbooks, design notes, how-tos) and returns the best matching passages with their titles and links. Use it before answering a question about how our systems work.",
    schema: z.object({
      query: z.string().describe("What to look for, in a few keywords"),
      limit: z.number().int().min(1).max(20).optional().describe("How many passages to return (default 5)"),
      space: z.enum(["engineering", "support", "sales"]).optional().describe("Only this documentation space"),
    }),
    effect: "read",
    execute: async () => "no passages",
  },
  {
    name: "read_ticket",
    description: "Reads one support ticket by its id: title, status, requester, assignee, the latest comments and the linked incidents.",
    schema: z.object({
      id: z
        .string()
        .regex(/^T-\d+$/)
        .describe("The ticket id, e.g. T-1234"),
      comments: z.number().int().optional(),
    }),
    effect: "read",
    execute: async () => "ticket",
  },
  {
    name: "create_ticket",
    description:
      "Opens a new support ticket in the team's queue with a title, a description and a priority. The ticket is visible to the whole team and notifies the on-call engineer for high priorities.",
    schema: z.object({
      title: z.string().min(5).max(120).describe("One line that says what is wrong"),
      description: z.string().max(5_000).describe("What happened, what was expected, and how to reproduce it"),
      priority: z.enum(["low", "normal", "high", "urgent"]).describe("How soon someone must look at it"),
    }),
    effect: "write",
    execute: async () => "created",
  },
];

const answers = [
  "The deploy pipeline runs the tests, builds the image and rolls it out to staging first; production follows after a manual approval in the release channel.",
  "Staging uses the same configuration as production except for the database, which is a nightly copy with personal data removed.",
  "Rollbacks are one command: the previous image stays tagged, and the release tool switches the service back to it within a minute.",
  "The on-call engineer gets paged for high and urgent tickets only; normal ones wait for the morning triage meeting.",
  "Access to production logs needs the observability role, which your team lead can grant in the access portal.",
  "Yes: the same rules apply to the batch jobs, except that they are deployed from their own pipeline on Tuesdays.",
];

describe("the prompt's prefix", () => {
  it("two runs of one conversation at different minutes share at least 90% of the first request's tokens", async () => {
    let now = Date.parse("2026-12-01T09:00:00Z");
    const model = new ScriptedModel(answers.map((answer) => say(answer)));
    const harness = await startRecordedService({ model, storeUrl: services.sqliteUrl(), tools, clock: () => now });
    open.push(harness);
    const origin = originFor("alice", "console:cache");
    const runIds: string[] = [];
    for (const [index, question] of [
      "How do deploys work?",
      "And staging?",
      "How do I roll back?",
      "Who gets paged?",
      "Can I read prod logs?",
      "Same for batch jobs?",
    ].entries()) {
      const outcome = await harness.service.ask({ origin, text: question }, () => {});
      runIds.push(outcome.runId);
      now += 3 * 60_000 + index * 1_000;
    }
    // The sixth run has five earlier turns (below MEMORY_HISTORY_TURNS, 10) and five tools.
    const sixth = await harness.record(runIds[5]!);
    expect(sixth.settings.tools).toHaveLength(5);
    expect(sixth.firstRequest!.filter((message) => message.role === "user")).toHaveLength(6);
    const prefix = sixth.prefix!;
    expect(prefix.shared / prefix.total).toBeGreaterThanOrEqual(0.9);
    // The requests themselves: the sixth begins with the fifth's messages up to its note, byte for byte.
    const [fifthRequest, sixthRequest] = [model.requests[4]!, model.requests[5]!];
    expect(sixthRequest.tools).toEqual(fifthRequest.tools);
    expect(sixthRequest.messages.slice(0, fifthRequest.messages.length - 2)).toEqual(fifthRequest.messages.slice(0, -2));
    expect(sixthRequest.tools.map((tool) => tool.name)).toEqual([
      "calculator",
      "create_ticket",
      "current_time",
      "read_ticket",
      "search_docs",
    ]);
  });
});

describe("compacting a run whose note sits before the question", () => {
  it("keeps the note with the question, and the two latest turns before them word for word", async () => {
    const turn = (index: number): ChatMessage[] => [
      { role: "user", content: `question ${index}` },
      { role: "assistant", content: `answer ${index}` },
    ];
    const note: ChatMessage = { role: "system", content: "The current date and time (UTC) is 2026-12-01T09:00:00.000Z." };
    const messages: ChatMessage[] = [
      { role: "system", content: "instructions" },
      ...turn(1),
      ...turn(2),
      ...turn(3),
      ...turn(4),
      note,
      { role: "user", content: "the question" },
      { role: "assistant", content: null, toolCalls: [{ id: "c1", name: "calculator", arguments: "{}" }] },
      { role: "tool", toolCallId: "c1", content: "1" },
      { role: "assistant", content: null, toolCalls: [{ id: "c2", name: "calculator", arguments: "{}" }] },
      { role: "tool", toolCallId: "c2", content: "2" },
    ];
    const model = new ScriptedModel([say("snapshot of turns 1 and 2")]);
    const compacted = await compactOlderTurns(messages, model, TokenCounter.forModel("gpt-4o-mini"), 1_000, new AbortController().signal);
    expect(compacted?.messages.map((message) => message.content)).toEqual([
      "instructions",
      "State snapshot of the earlier conversation and steps (compacted to save context):\nsnapshot of turns 1 and 2",
      "question 3",
      "answer 3",
      "question 4",
      "answer 4",
      note.content,
      "the question",
      null,
      "1",
      null,
      "2",
    ]);
  });
});
