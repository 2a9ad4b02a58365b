// The guards' figures: how far one run may go before a guard stops it.
import { area } from "./area.js";
import { wholeNumber } from "./values.js";
import { variable } from "./variable.js";

export const guardsArea = area({
  title: "Guards",
  about: "How far one run may go before a guard stops it (see [the guards](guards-and-approvals.md#the-guards)).",
  variables: {
    maxSteps: variable("AGENT_MAX_STEPS", wholeNumber(1, 100), { default: 10, meaning: "model calls per run" }),
    maxConsecutiveErrors: variable("AGENT_MAX_CONSECUTIVE_ERRORS", wholeNumber(1, 20), { default: 3, meaning: "failed steps in a row" }),
    oscillationWindow: variable("AGENT_OSCILLATION_WINDOW", wholeNumber(2, 50), {
      default: 6,
      meaning: "calls looked at by the oscillation guard",
    }),
    /** Undefined: take the model's default window from the table. */
    contextTokens: variable("AGENT_CONTEXT_TOKENS", wholeNumber(1_024, 2_000_000), {
      shownDefault: "by model",
      meaning:
        "the model's context window; set it for local models, which often run small windows. By model: gpt-4.1 1M, gpt-5 400k, o-series 200k, gpt-4o / gpt-4.5 / gpt-4-turbo 128k, gpt-4-32k 32k, gpt-4 8k, gpt-3.5-turbo 16k, Llama 3 / Qwen 2.5–3 / Mistral Large / Mixtral / DeepSeek 32k, anything else 8k. It must be larger than `AGENT_RESERVED_OUTPUT_TOKENS`",
    }),
    reservedOutputTokens: variable("AGENT_RESERVED_OUTPUT_TOKENS", wholeNumber(256, 131_072), {
      default: 2048,
      meaning: "kept free for the model's reply",
    }),
    observationTokens: variable("AGENT_OBSERVATION_TOKENS", wholeNumber(100, 100_000), {
      default: 2000,
      meaning: "a tool result is cut to this before the model sees it (the full result stays in the trace)",
    }),
    runTimeoutMs: variable("AGENT_RUN_TIMEOUT_MS", wholeNumber(1_000, 3_600_000), {
      default: 120_000,
      meaning: "wall clock for one run (time waiting for an approval does not count)",
    }),
    toolTimeoutMs: variable("AGENT_TOOL_TIMEOUT_MS", wholeNumber(100, 600_000), {
      default: 30_000,
      meaning: "per tool call, unless the tool sets its own",
    }),
  },
  shape: (guards) => ({ guards }),
});
