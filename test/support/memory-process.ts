// A second bot process in miniature, for the multi-process tests: opens the store named on
// the command line, does one thing, prints the result as JSON and exits on its own.
//   memory-process.ts <store-url> write <conversation> <fact>...   remember facts + append a turn
//   memory-process.ts <store-url> read <conversation>              print facts and history
//   memory-process.ts <store-url> claim <key>                      print setIfAbsent's answer
import { silentLogger } from "../../src/logger.js";
import { createConversationHistory } from "../../src/memory/history.js";
import { openStore } from "../../src/memory/keyv-store.js";
import { createLongTermMemory } from "../../src/memory/long-term-memory.js";

const [url, command, key, ...rest] = process.argv.slice(2);
if (url === undefined || key === undefined) throw new Error("usage: memory-process.ts <store-url> write|read|claim <key> [facts…]");

const store = await openStore(url, silentLogger);
const facts = createLongTermMemory(store, { maxFacts: 200, logger: silentLogger });
const history = createConversationHistory(store, {
  maxTurns: 10,
  maxTokens: 10_000,
  countTokens: (text) => text.length,
  logger: silentLogger,
});

let output: unknown;
if (command === "write") {
  const written = await facts.remember(key, rest);
  await history.append(key, { user: `remember ${rest.length} facts`, assistant: `written by ${process.pid}`, at: Date.now() });
  output = written;
} else if (command === "read") {
  output = { facts: (await facts.list(key)).map((fact) => fact.text), history: await history.load(key) };
} else if (command === "claim") {
  output = { won: await store.setIfAbsent(key, process.pid, 60_000) };
} else {
  throw new Error(`unknown command ${command}`);
}
await store.close();
process.stdout.write(JSON.stringify(output));
