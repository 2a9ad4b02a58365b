// How much of each model request a server's prompt cache could reuse, through the real service
// at realistic sizes: a channel persona that makes the system prompt about 1,500 tokens, 8 tools,
// tool results of a few hundred tokens, 8 runs of 2 to 8 steps in one conversation (its history
// growing and trimmed as configured). Targets: ≥ 95 % within a run, ≥ 90 % across runs.
// A step adds its call and its result, which no cache can hold: the share within a run is the
// previous request's size over the new one's, so it is measured for two kinds of tools, short
// results (a lookup, the built-in tools: tens of tokens) and long ones (records with excerpts:
// a few hundred tokens), and it is printed how much of the previous request the next one reuses
// (all of it, unless something before the new part changed).
//
// How it is computed: a request is taken in the order a server reads it (each tool schema, then
// each message, as JSON: src/agent/context/prompt-prefix.ts), and its share is the tokens of the
// longest byte-identical prefix it has with the request before it, over its own tokens (the
// tokenizer of gpt-4o-mini). Within a run: each step's request against the step before. Across
// runs: a run's first request against the last request of the run before (the one the server
// saw just before), and against that run's first request (what the run record measures).
import { z } from "zod";
import { prefixShare, requestParts } from "../src/agent/context/prompt-prefix.js";
import { loadConfig } from "../src/config.js";
import type { ModelRequest, Tool } from "../src/contracts/types.js";
import { createGovernance } from "../src/governance/governance.js";
import { fixedSettings } from "../src/governance/settings-source.js";
import { OPEN_SETTINGS } from "../src/governance/settings-schema.js";
import { silentLogger } from "../src/logger.js";
import { createAgentService } from "../src/runs/service/create-agent-service.js";
import { TokenCounter } from "../src/tokens/token-counter.js";
import { call, ScriptedModel, say } from "../test/support/model-scripted.js";
import { mapStore } from "../test/support/map-store.js";
import { percentile } from "./support/stats.js";

const RUNS = 8;
/** Steps of each run: tool calls, then the answer. */
const STEPS = [4, 2, 8, 5, 3, 6, 7, 4] as const;
const WITHIN_TARGET = 0.95;
const ACROSS_TARGET = 0.9;

const PERSONA = [
  "You are the operations desk's assistant for the payments platform.",
  ...Array.from(
    { length: 28 },
    (_, index) =>
      `Rule ${index + 1}: when a question touches service ${["ledger", "payouts", "fraud", "settlement", "billing"][index % 5]}, check its runbook and the on-call rota first, quote the runbook section you relied on, keep numbers exact, say what you could not verify, and never change production without an approval.`,
  ),
].join("\n");

/** Entries in a read tool's result: none for short results, one to three records for long ones. */
type Profile = { readonly name: string; readonly entries: (tool: number) => number };
const PROFILES: readonly Profile[] = [
  { name: "short tool results", entries: () => 0 },
  { name: "long tool results", entries: (tool) => 1 + (tool % 3) },
];

/** Six read tools beside the built-in calculator and current_time: eight in all. */
function readTools(profile: Profile): Tool[] {
  const names = ["read_runbook", "search_incidents", "read_dashboard", "list_deploys", "read_oncall", "search_docs"];
  return names.map((name, index) => ({
    name,
    description: `${name.replaceAll("_", " ")}: returns the matching entries with their ids, owners, timestamps and a short excerpt; paginate with cursor.`,
    schema: z.object({
      query: z.string().describe("what to look for, in plain words"),
      service: z.enum(["ledger", "payouts", "fraud", "settlement", "billing"]).optional(),
      since: z.string().describe("an ISO date").optional(),
      cursor: z.string().optional(),
      limit: z.number().int().min(1).max(50).optional(),
    }),
    effect: "read" as const,
    execute: async ({ query }: { query: string }) =>
      JSON.stringify({
        tool: name,
        query,
        entries: Array.from({ length: profile.entries(index) }, (_, entry) => ({
          id: `${name}-${entry}`,
          owner: `team-${entry % 3}`,
          at: `2026-11-${String(10 + entry).padStart(2, "0")}T08:00:00Z`,
          excerpt: `entry ${entry} about ${query}: the change rolled out in two waves and the error rate stayed under the alert line.`,
        })),
      }),
  }));
}

/** Each run's requests in order, found by the question the run asks. */
function scriptedModel(questions: readonly string[], requests: Map<string, ModelRequest[]>): ScriptedModel {
  const stepOf = new Map<string, number>();
  return new ScriptedModel([], {
    whenExhausted: (request) => {
      const asked = [...request.messages].reverse().find((message) => message.role === "user")?.content;
      const question = questions.find((text) => text === asked);
      if (!question) return say("(not a run's request)");
      // The request's messages are the run's live array: kept as they were sent.
      requests.set(question, [...(requests.get(question) ?? []), { ...request, messages: [...request.messages] }]);
      const step = (stepOf.get(question) ?? 0) + 1;
      stepOf.set(question, step);
      const run = questions.indexOf(question);
      if (step < STEPS[run]!) {
        const tool = ["read_runbook", "search_incidents", "read_dashboard", "list_deploys", "read_oncall", "search_docs", "calculator"][
          (run + step) % 7
        ]!;
        return tool === "calculator"
          ? call(tool, { expression: `${run}*${step}+7` })
          : call(tool, { query: `question ${run} step ${step}`, limit: 10 });
      }
      return say(
        `Run ${run + 1}: the ledger deploy is safe to resume; the runbook's section 4.${run} says so, and no incident is open. ${"Details follow. ".repeat(6)}`,
      );
    },
  });
}

const share = (part: { shared: number; total: number }) => part.shared / part.total;
const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

/** Each run's requests, in order, from a conversation of RUNS runs through the real service. */
async function conversation(profile: Profile): Promise<ModelRequest[][]> {
  const questions = Array.from(
    { length: RUNS },
    (_, index) => `Question ${index + 1}: is it safe to resume the ledger deploy after change ${index + 1}?`,
  );
  const requests = new Map<string, ModelRequest[]>();
  const model = scriptedModel(questions, requests);
  const config = loadConfig({ STORE_URL: "sqlite://data/unused.sqlite", MEMORY_EXTRACT_FACTS: "false", OPENAI_MODEL: "gpt-4o-mini" });
  const store = mapStore();
  const settings = { ...OPEN_SETTINGS, channels: { default: { systemPrompt: PERSONA } } };
  const governance = createGovernance({ source: fixedSettings(settings), store, logger: silentLogger, model: "gpt-4o-mini", maxSteps: 10 });
  const service = createAgentService({
    config,
    model,
    store,
    logger: silentLogger,
    runPolicy: governance.runPolicy,
    authority: governance.authority,
    tools: readTools(profile),
  });
  await service.start();
  const origin = { surface: "console" as const, conversationKey: "console:cache", requester: { id: "alice" }, place: {} };
  for (const question of questions) await service.ask({ origin, text: question }, () => {});
  await service.close();
  await governance.close();
  return questions.map((question) => requests.get(question) ?? []);
}

function report(profile: Profile, requests: readonly ModelRequest[][], counter: TokenCounter): void {
  const runs = requests.map((steps) => steps.map((request) => requestParts(request.tools, request.messages)));
  const opening = requests[0]![0]!;
  const systemPrompt = opening.messages[0]!.role === "system" ? opening.messages[0]!.content : "";
  console.log(
    `${profile.name}: ${opening.tools.length} tools (${counter.countTools(opening.tools)} tokens), a system prompt of ${counter.countText(systemPrompt)} tokens, ${runs.reduce((sum, steps) => sum + steps.length, 0)} requests in ${RUNS} runs of ${STEPS.join(", ")} steps`,
  );
  const within = runs.flatMap((steps) => steps.slice(1).map((parts, index) => prefixShare(parts, steps[index], counter)));
  const withinShares = within.map(share);
  const withinTokens = within.reduce((sum, part) => sum + part.shared, 0) / within.reduce((sum, part) => sum + part.total, 0);
  const previousTokens = runs.flatMap((steps) => steps.slice(0, -1).map((parts) => counter.countText(parts.join(""))));
  const added = within.map((part) => part.total - part.shared);
  const reused = within.reduce((sum, part) => sum + part.shared, 0) / previousTokens.reduce((sum, tokens) => sum + tokens, 0);
  console.log(
    `  within a run (${within.length} steps after the first): ${percent(withinTokens)} of the tokens (lowest ${percent(Math.min(...withinShares))}, p10 ${percent(percentile(withinShares, 10))}) · target ≥ ${percent(WITHIN_TARGET)}: ${withinTokens >= WITHIN_TARGET ? "met" : "missed"}`,
  );
  console.log(
    `  each step's request reuses ${percent(reused)} of the one before; a step adds ${percentile(added, 50)} tokens at the median (p90 ${percentile(added, 90)})`,
  );
  const afterLast = runs.slice(1).map((steps, index) => prefixShare(steps[0]!, runs[index]!.at(-1), counter));
  const afterFirst = runs.slice(1).map((steps, index) => prefixShare(steps[0]!, runs[index]![0], counter));
  for (const [name, parts] of [
    ["the previous run's last request", afterLast],
    ["the previous run's first request", afterFirst],
  ] as const) {
    const tokens = parts.reduce((sum, part) => sum + part.shared, 0) / parts.reduce((sum, part) => sum + part.total, 0);
    console.log(
      `  across runs, a first request against ${name}: ${percent(tokens)} of the tokens (lowest ${percent(Math.min(...parts.map(share)))}) · target ≥ ${percent(ACROSS_TARGET)}: ${tokens >= ACROSS_TARGET ? "met" : "missed"}`,
    );
  }
}

export async function run(): Promise<void> {
  const counter = TokenCounter.forModel("gpt-4o-mini");
  for (const profile of PROFILES) report(profile, await conversation(profile), counter);
}
