// The connect flow across a restart, in real bot processes (src/main.ts): the first process shows
// the Connect line and stops; the second, on the same store and port, shows a Connect line of its
// own, takes the first link's callback, and the waiting run goes on there. Neither process logs a
// token or a link's state (LOG_LEVEL=debug), and the store file holds none as it is.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ProtectedMcpServer, startProtectedMcpServer } from "../../../support/authorization-server.js";
import { type FakeOpenAI, startFakeOpenAI, textReply, toolCallReply } from "../../../support/fake-openai-server.js";
import { freePort } from "../../../support/free-port.js";
import { type MainProcess, spawnMain } from "../../../support/main-child.js";
import { openInBrowser } from "../../../support/plain-browser.js";
import { storedBytes } from "../../../support/store-bytes.js";
import { temporaryFolder, type TemporaryFolder } from "../../../support/temporary-folder.js";
import { until } from "../../../support/until.js";

let opened: Array<{ close(): Promise<unknown> }> = [];
let children: MainProcess[] = [];
afterEach(async () => {
  for (const child of children) if (child.child.exitCode === null) child.child.kill("SIGKILL");
  await Promise.all(children.map((child) => child.exited));
  for (const item of opened.reverse()) await item.close();
  opened = [];
  children = [];
});

describe("connecting across a restart, in bot processes", () => {
  it("the second process takes the callback, the run goes on there once, and no token is logged or stored as it is", {
    timeout: 90_000,
  }, async () => {
    const folder: TemporaryFolder = await temporaryFolder();
    opened.push({ close: () => folder.remove() });
    const server: ProtectedMcpServer = await startProtectedMcpServer();
    opened.push(server);
    const model: FakeOpenAI = await startFakeOpenAI();
    opened.push(model);
    const config = join(folder.path, "mcp.json");
    await writeFile(config, JSON.stringify({ mcpServers: { docs: { url: server.url, auth: { type: "user" } } } }));
    const env = {
      STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}`,
      MCP_CONFIG: config,
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_MODEL: "gpt-4o-mini",
      PORT: String(await freePort()),
      APPROVAL_SECRET: "a-test-approval-secret-0123456789",
      MEMORY_EXTRACT_FACTS: "no",
      LOG_LEVEL: "debug",
      LOG_FORMAT: "json",
    };
    model.enqueue(toolCallReply([{ name: "docs__connect", args: {} }]));
    const first = spawnMain(env);
    children.push(first);
    await first.waitForOutput("MCP server docs: up");
    first.child.stdin.write("who am I at docs?\n");
    await until(() => /Connect docs: \S+/.test(first.stdout()), `the Connect line; got:\n${first.stdout()}`, 20_000);
    const link = /Connect docs: (\S+)/.exec(first.stdout())![1]!;
    first.child.kill("SIGTERM");
    await first.exited;
    // What the next process finds of the waiting run keeps no link.
    expect((await storedBytes(env.STORE_URL)).includes(new URL(link).searchParams.get("state")!)).toBe(false);

    model.enqueue(toolCallReply([{ name: "docs__whoami", args: {} }]), textReply("done"));
    const second = spawnMain(env);
    children.push(second);
    await until(
      () => second.stdout().includes("Connect docs: "),
      `the Connect line again; got:\n${second.stdout()}\n${second.stderr().slice(-3000)}`,
      20_000,
    );
    expect(await openInBrowser(link)).toEqual({ status: 200, text: "Connected to docs — you can close this tab." });
    await until(() => second.stdout().includes("done"), `the answer; got:\n${second.stdout()}`, 20_000);
    expect(JSON.stringify(model.requests.at(-1)?.body)).toContain("you are ada");
    second.child.kill("SIGTERM");
    await second.exited;

    const logs = first.stderr() + second.stderr();
    expect(logs).toContain("a person connected an MCP server");
    const file = await storedBytes(`sqlite://${join(folder.path, "bot.sqlite")}`);
    // Neither process's Connect link is stored or logged: the second made its own from the record, which keeps none.
    const links = [...(first.stdout() + second.stdout()).matchAll(/Connect docs: (\S+)/g)].map((match) => match[1]!);
    expect(new Set(links).size).toBe(2);
    for (const shown of links) {
      const state = new URL(shown).searchParams.get("state")!;
      expect(file.includes(state)).toBe(false);
      expect(logs).not.toContain(state);
    }
    expect(server.as.issued.length).toBeGreaterThanOrEqual(2);
    for (const token of server.as.issued) {
      expect(logs).not.toContain(token);
      expect(first.stdout() + second.stdout()).not.toContain(token);
      expect(file.includes(token)).toBe(false);
    }
  });
});
