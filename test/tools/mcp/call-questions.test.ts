// Which call a server's question belongs to, on one connection shared by calls of several runs,
// against the SDK's own server over Streamable HTTP: a question asked on a call's own stream is
// that call's, so one from a call that can't ask anyone is refused rather than put to the
// requester of another run whose call is in flight; and a server that acts as the person (behind
// the real authorization server) asks in her session, each of her runs its own question.
import { afterEach, describe, expect, it } from "vitest";
import type { FormAnswer, FormQuestion, TaskOrigin } from "../../../src/contracts/types.js";
import { silentLogger } from "../../../src/logger.js";
import { PersonServer } from "../../../src/tools/mcp/person-server.js";
import { ServerConnection } from "../../../src/tools/mcp/server-connection.js";
import { useConnectionsHarness } from "../../support/connections-harness.js";
import { askingTools } from "../../support/mcp-asking-tools.js";
import { openInBrowser } from "../../support/plain-browser.js";
import { startMcpHttpServer, type TestMcpHttpServer } from "../../support/mcp-http-server.js";
import { serverConfig } from "../../support/mcp-servers.js";

const harness = useConnectionsHarness();
const opened: Array<ServerConnection | PersonServer | TestMcpHttpServer> = [];
afterEach(async () => {
  for (const item of opened.splice(0)) await ("close" in item ? item.close() : item.kill());
});

async function connected(): Promise<ServerConnection> {
  const { setup } = askingTools();
  const http = await startMcpHttpServer({ tools: setup });
  opened.push(http);
  const connection = new ServerConnection(serverConfig("rooms", { kind: "http", url: http.url, headers: {}, sse: false }), {
    logger: silentLogger,
    onChange: () => {},
    heartbeatMs: 60_000,
  });
  opened.push(connection);
  await connection.start();
  return connection;
}

/** A requester who keeps each question open until the test answers it. */
function requester(): {
  readonly asked: FormQuestion[];
  readonly next: () => Promise<FormQuestion>;
  ask: (question: FormQuestion) => Promise<FormAnswer>;
  answer(answer: FormAnswer): void;
} {
  const asked: FormQuestion[] = [];
  const waiting: Array<(question: FormQuestion) => void> = [];
  const open: Array<(answer: FormAnswer) => void> = [];
  return {
    asked,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    ask: (question) =>
      new Promise((resolve) => {
        asked.push(question);
        open.push(resolve);
        waiting.shift()?.(question);
      }),
    answer: (answer) => open.shift()?.(answer),
  };
}

const text = (result: Awaited<ReturnType<ServerConnection["callTool"]>>) => (result.content[0] as { text: string }).text;

describe("a server's question during calls of several runs on one connection", () => {
  it("asked on the stream of a call that can't ask anyone, is refused there and never put to the other run's requester", async () => {
    const connection = await connected();
    const alice = requester();
    const options = { signal: new AbortController().signal, timeoutMs: 10_000 };
    const asked = alice.next();
    const asking = connection.callTool("book_room_here", {}, { ...options, ask: alice.ask, runId: "run_alice" });
    await asked;
    const silent = await connection.callTool("book_room_here", {}, { ...options, runId: "run_scheduled" });
    expect(text(silent)).toMatch(/elicitation refused: the call it belongs to can't ask anyone/);
    expect(alice.asked).toHaveLength(1);
    alice.answer({ action: "decline", by: { id: "alice" } });
    expect(text(await asking)).toBe('{"action":"decline"}');
  });
});

describe("a server that acts as the person, asking during her calls", () => {
  it("asks each of her two runs calling at once its own question in her session, and each answer reaches its own call", async () => {
    const setup = await harness.start({ tools: askingTools().setup });
    const here = await setup.process();
    expect(await openInBrowser(await setup.link(here))).toMatchObject({ status: 200 });
    const docs = new PersonServer(
      serverConfig("docs", { kind: "http", url: setup.server.url, headers: {}, sse: false }, { auth: { type: "user" } }),
      { logger: silentLogger, people: () => ({ connections: here.connections, store: here.store }), onChange: () => {} },
    );
    opened.push(docs);
    const origin: TaskOrigin = { surface: "console", conversationKey: "console:ada", requester: { id: "ada" }, place: {} };
    const options = { signal: new AbortController().signal, timeoutMs: 10_000, origin };
    const [first, second] = [requester(), requester()];
    const asked = Promise.all([first.next(), second.next()]);
    const calls = [
      docs.callTool("book_room_here", {}, { ...options, ask: first.ask, runId: "run_1" }),
      docs.callTool("book_room_here", {}, { ...options, ask: second.ask, runId: "run_2" }),
    ];
    expect((await asked).map((question) => question.server)).toEqual(["docs", "docs"]);
    second.answer({ action: "accept", values: { purpose: "review" }, by: { id: "ada" } });
    first.answer({ action: "decline", by: { id: "ada" } });
    const [one, two] = await Promise.all(calls);
    expect(text(one!)).toBe('{"action":"decline"}');
    expect(JSON.parse(text(two!))).toEqual({ action: "accept", content: { purpose: "review" } });
  });
});
