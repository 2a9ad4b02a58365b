// A bot process in miniature for the files crash and memory tests: the real service on the store
// named on the command line, the model behind the fake OpenAI server, files fetched from the fake
// file host, FILE_* settings from its environment. It prints one JSON line per thing the test
// waits for: `reading` (a file's read began), `stored` (a file's record reached the store), `event`
// (a run's files event), `answer`. With `submit` it records one message with its files first, with
// `submit-then-ask` a second message without files once the first is answered; either way it takes
// up what an earlier process left unfinished.
//   files-process.ts <store-url> <openai-base-url> <files-json> submit|submit-then-ask|resume
import { createOpenAIModel } from "../../src/agent/models/model-openai.js";
import { loadConfig } from "../../src/config.js";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import { createAgentService } from "../../src/runs/service/create-agent-service.js";
import type { FileDescriptor } from "../../src/files/file-ref.js";
import { GOOD_TOKEN } from "./fake-file-server.js";
import { urlFiles } from "./sample-files.js";

const [storeUrl, openaiBaseUrl, filesJson, mode] = process.argv.slice(2);
const files = JSON.parse(filesJson!) as FileDescriptor[];
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

const config = loadConfig({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith("FILE_"))),
  STORE_URL: storeUrl,
  OPENAI_API_KEY: "sk-test",
  OPENAI_BASE_URL: openaiBaseUrl,
  OPENAI_MODEL: "gpt-4o",
  OPENAI_MAX_RETRIES: "0",
  MEMORY_EXTRACT_FACTS: "false",
});
const real = await openStore(config.storeUrl, silentLogger);
// A recorder between the service and the store: the test kills this process right after a file is stored.
const store = {
  ...real,
  set: async (key: string, value: unknown, ttlMs?: number) => {
    await real.set(key, value, ttlMs);
    if (key.startsWith("file:")) say({ stored: key });
    if (key.startsWith("file-reading:")) say({ reading: key });
  },
};
const model = createOpenAIModel({
  apiKey: "sk-test",
  baseUrl: openaiBaseUrl,
  model: "gpt-4o",
  timeoutMs: 30_000,
  maxRetries: 0,
  logger: silentLogger,
});
const origin = { surface: "console" as const, conversationKey: "console:crash", requester: { id: "ann" }, place: {} };
let asked = false;
const service = createAgentService({ config, model, store, logger: silentLogger });
const host = new URL(files[0]!.source.url!).origin;
service.attach("console", {
  tools: [],
  files: urlFiles({ token: GOOD_TOKEN, origins: [host] }),
  present: () => ({
    sink: (event) => {
      if (event.type === "files") say({ event });
    },
    finish: async (outcome) => {
      say({ answer: outcome.status === "answered" ? outcome.answer : outcome.status });
      if (mode === "submit-then-ask" && !asked) {
        asked = true;
        say({ submitted: await service.submit({ origin, text: "and what now?" }, "message-2") });
      }
      return undefined;
    },
    fail: async (error) => void say({ failed: String(error) }),
  }),
});
await service.start();
if (mode !== "resume") say({ submitted: await service.submit({ origin, text: "summarise the spec and the notes", files }, "message-1") });
