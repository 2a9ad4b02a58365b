// The layering of src/, checked in CI (`npm run lint:deps`): imports go one way, from the
// composition root (main.ts, app*.ts) through the chat adapters and ops, the runs, governance and the
// tools, to the agent, and down to memory, config, the tokenizer and the shared contracts. No
// circles; src/ never reaches into test/, bench/ or soak/; each platform library stays in its room.
// TypeScript 7 has no compiler API, so the files are parsed with swc (type-only imports count).

/** The rooms below a layer, as a path pattern: a rule forbids importing `layer` from any of them. */
const below = (rooms) => `^src/(${rooms.join("|")})(/|\\.ts$)`;
const BOTTOM = ["memory", "config", "tokens", "cost", "contracts", "errors", "logger", "time-zone"];
const AGENT_AND_BELOW = ["agent", ...BOTTOM];
const TOOLS_AND_BELOW = ["tools", ...AGENT_AND_BELOW];
const GOVERNANCE_AND_BELOW = ["governance", ...TOOLS_AND_BELOW];
const RUNS_AND_BELOW = ["runs", ...GOVERNANCE_AND_BELOW];

const layer = (name, comment, fromRooms, to) => ({ name, comment, severity: "error", from: { path: below(fromRooms) }, to: { path: to } });
const onlyIn = (name, comment, folder, module) => ({
  name,
  comment,
  severity: "error",
  from: { path: "^src/", pathNot: folder },
  to: { path: `^node_modules/${module}/` },
});

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "A circle makes two files one concept; give the shared part (often the types) its own file.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "src-not-test",
      comment: "The product never imports its tests, benchmarks or soak (fakes belong in test/support).",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|bench|soak)/" },
    },
    {
      name: "root-not-imported",
      comment: "main.ts and app*.ts wire everything; nothing below imports them.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(main|app|app-[a-z-]+)\\.ts$" },
      to: { path: "^src/(main|app|app-[a-z-]+|resource-stack)\\.ts$" },
    },
    layer("adapters-on-top", "Only the root imports the chat adapters.", [...RUNS_AND_BELOW, "ops"], "^src/adapters/"),
    {
      name: "adapters-not-the-loop",
      comment: "Every run goes through the runs: a chat adapter consumes the loop's events, and never drives the loop itself.",
      severity: "error",
      from: { path: "^src/adapters/" },
      to: { path: "^src/agent/loop/" },
    },
    layer(
      "ops-beside-adapters",
      "Health, metrics and the explorer watch the runs; nothing below imports them.",
      RUNS_AND_BELOW,
      "^src/ops/",
    ),
    layer(
      "schedules-above-runs",
      "Schedules fire slots as tasks through the runs; the runs know nothing of schedules.",
      RUNS_AND_BELOW,
      "^src/schedules/",
    ),
    {
      name: "worker-not-service",
      comment: "A work item is handled from what it is given (named, typed dependencies), never by reaching into the service's wiring.",
      severity: "error",
      from: { path: "^src/runs/(worker|intake|queue|approvals|setup|forms)/" },
      to: { path: "^src/runs/service/" },
    },
    layer(
      "runs-above-agent",
      "The runner drives the agent; the agent knows nothing of queues and stores.",
      GOVERNANCE_AND_BELOW,
      "^src/runs/",
    ),
    layer("governance-above-agent", "Access, limits and the audit sit above the loop.", TOOLS_AND_BELOW, "^src/governance/"),
    layer("tools-above-agent", "Built-in and MCP tools are the loop's data, handed to it.", AGENT_AND_BELOW, "^src/tools/"),
    layer("agent-above-memory", "Memory, config and the tokenizer never import the loop.", BOTTOM, "^src/agent/"),
    layer("contracts-at-the-bottom", "The shared contracts import nothing of the product.", ["contracts"], "^src/(?!contracts/)"),
    onlyIn("bolt-only-in-slack", "@slack/* is the Slack surface's transport.", "^src/adapters/slack/", "@slack"),
    onlyIn(
      "discord-only-in-discord",
      "discord.js is the Discord surface's transport.",
      "^src/adapters/discord/",
      "(discord\\.js|@discordjs)",
    ),
    onlyIn(
      "pino-only-in-the-logger",
      "One Logger type, from src/logger.ts: the rest of src/ never names pino.",
      "^src/logger\\.ts$",
      "pino",
    ),
    onlyIn(
      "openai-only-in-its-client",
      "The model is a one-method seam; one file speaks the OpenAI SDK (and one reads its error classes to describe a failure).",
      "^src/agent/models/model-(openai|failure)\\.ts$",
      "openai",
    ),
  ],
  options: {
    parser: "swc",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "\\.d\\.ts$" },
  },
};
