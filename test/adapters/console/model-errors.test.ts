// A model that can't answer, seen in the console as the app wires it (startApp): one line with
// the cause and the fix, the retries shown as they happen, no JSON and no stack in the chat,
// and no "try again" when trying again can't help.
import { afterEach, describe, expect, it } from "vitest";
import { errorReply, startFakeOpenAI, type FakeOpenAI } from "../../support/fake-openai-server.js";
import { until } from "../../support/until.js";
import { useAppHarness } from "../../support/app-harness.js";
import { freePort } from "../../support/free-port.js";

const apps = useAppHarness();
let server: FakeOpenAI | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The app in console mode on `baseUrl`; returns what the console shows once the question is answered. */
async function ask(baseUrl: string, question: string): Promise<string> {
  const { type, shown, waitFor } = await apps.startConsole({
    OPENAI_API_KEY: "sk-test-abcdefghijklmnop",
    OPENAI_BASE_URL: baseUrl,
    OPENAI_MAX_RETRIES: "1",
    MEMORY_EXTRACT_FACTS: "false",
  });
  await waitFor("> ", "the prompt");
  const from = shown().length;
  type(question);
  await until(() => /Stopped: .*\n[\s\S]*\n> $/.test(shown().slice(from)), "the stop line and the next prompt");
  return shown().slice(from);
}

describe("the console when the model can't answer", () => {
  it("an unreachable server: the retry, then one line with the cause and the fix, no JSON, no stack", async () => {
    const baseUrl = `http://127.0.0.1:${await freePort()}/v1`;
    const shown = await ask(baseUrl, "hello");
    expect(shown).toMatch(/· model not answering, retry 1 of 1 in [\d.]+ (ms|s): could not connect to .*connection refused/);
    expect(shown).toContain(
      `Stopped: could not connect to ${baseUrl} (connection refused: ECONNREFUSED), after 2 tries. Check OPENAI_BASE_URL and that the model server is running, then try again.`,
    );
    expect(shown).not.toMatch(/[{}]/);
    expect(shown).not.toMatch(/^\s+at /m);
    expect(shown).not.toContain("That failed");
  });

  it("a rejected key: the hint, without 'try again'", async () => {
    server = await startFakeOpenAI();
    server.enqueue(errorReply(401, "Incorrect API key provided"));
    const shown = await ask(server.baseUrl, "hello");
    expect(shown).toContain("Check OPENAI_API_KEY; trying again will not help until then.");
    expect(shown).not.toMatch(/try again in a moment|then try again|Try again, or \/quit/i);
    expect(shown).not.toMatch(/[{}]/);
  });
});
