// The model server: which one, which model, how long a call may take.
import { area } from "./area.js";
import { endpointList, httpUrl, oneOf, text, wholeNumber } from "./values.js";
import { variable } from "./variable.js";

/** OPENAI_API_KEY=demo asks for the offline demo model by name (needed when a chat surface is set up). */
export const DEMO_KEY = "demo";

export const modelArea = area({
  title: "Model",
  about: "Any OpenAI-compatible server. With no key the console answers with the offline demo model.",
  variables: {
    apiKey: variable("OPENAI_API_KEY", text(), {
      secret: true,
      meaning:
        "key for the model server. Unset in console mode = offline demo model; with Slack or Discord set up the start stops without it, unless it is `demo` (the offline demo model, by name)",
    }),
    baseUrl: variable("OPENAI_BASE_URL", httpUrl(), {
      shownDefault: "OpenAI's",
      meaning: "any OpenAI-compatible server: Ollama (`http://localhost:11434/v1`), vLLM, llama.cpp, LM Studio, OpenRouter",
    }),
    name: variable("OPENAI_MODEL", text(), {
      default: "gpt-4o-mini",
      meaning: "model name; also picks the tokenizer and the default context window",
    }),
    timeoutMs: variable("OPENAI_TIMEOUT_MS", wholeNumber(1_000, 600_000), {
      default: 60_000,
      meaning: "per model call (each attempt), until the server starts answering",
    }),
    streamIdleMs: variable("MODEL_STREAM_IDLE_MS", wholeNumber(1_000, 600_000), {
      default: 30_000,
      meaning: "a streamed answer that sends nothing for this long counts as a failed attempt (retried like a timeout)",
    }),
    maxRetries: variable("OPENAI_MAX_RETRIES", wholeNumber(0, 10), {
      default: 3,
      meaning: "retries of 408/409/429/5xx and connection errors, honouring `Retry-After`",
    }),
    fallbacks: variable("MODEL_FALLBACKS", endpointList(), {
      default: "",
      shownDefault: "none",
      meaning:
        "endpoints tried in order after `OPENAI_MODEL`@`OPENAI_BASE_URL` when it fails in a way worth retrying (connection, timeout, 408, 409, 429, 5xx), each with `OPENAI_API_KEY` unless the settings file's `models` gives it a key variable, context window and prices (see [operations](operations.md#model-failover))",
    }),
    breakerFailures: variable("MODEL_BREAKER_FAILURES", wholeNumber(1, 100), {
      default: 3,
      meaning:
        "failures in a row that open an endpoint's circuit breaker (with `MODEL_FALLBACKS`): no run calls it until the cool-down is over",
    }),
    breakerCoolDownMs: variable("MODEL_BREAKER_COOLDOWN_MS", wholeNumber(1_000, 3_600_000), {
      default: 30_000,
      meaning: "how long an open breaker refuses calls before one probe call may close it again",
    }),
    vision: variable("OPENAI_VISION", oneOf(["auto", "on", "off"]), {
      default: "auto",
      meaning:
        "images to the model: `auto` by its name (see [files](files.md)), `on` for a vision model the table lacks, `off` never (a note instead)",
    }),
  },
  shape: ({ apiKey, ...model }) => ({
    model: {
      /** Undefined: the offline demo model. */
      apiKey: apiKey === DEMO_KEY ? undefined : apiKey,
      /** OPENAI_API_KEY=demo: the demo model was asked for, not fallen back to. */
      demoRequested: apiKey === DEMO_KEY,
      ...model,
    },
  }),
});
