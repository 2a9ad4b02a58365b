// A server's form in the console, through the real console adapter, service and an SDK-built
// MCP server on 127.0.0.1: one prompt per field where an empty line takes the default, a field
// that does not read is asked again, `send? [y/N]` ends it (anything but yes declines), `/cancel`
// dismisses it, an unanswered form closes at its expiry, and a link is one line with its URL.
import { afterEach, describe, expect, it } from "vitest";
import type { ModelRequest } from "../../../src/contracts/types.js";
import { startConsole, type ConsoleHarness } from "../../support/console-harness.js";
import { startAskingServer, type AskingServer } from "../../support/elicitation-harness.js";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";
import { silentLogger } from "../../../src/logger.js";
import { createMcpManager } from "../../../src/tools/mcp/mcp-manager.js";
import { everythingServer, serverConfig, whenServers } from "../../support/mcp-servers.js";
import { dataInside } from "../../../src/agent/context/data-blocks.js";

let harness: ConsoleHarness | undefined;
let server: AskingServer | undefined;
afterEach(async () => {
  await harness?.close();
  await server?.close();
  harness = server = undefined;
});

async function startWith(tool: string, env: Record<string, string> = {}): Promise<{ harness: ConsoleHarness; server: AskingServer }> {
  server = await startAskingServer();
  const said = (request: ModelRequest) => say(`server said: ${dataInside(String(request.messages.at(-1)?.content ?? ""))}`);
  // Two questions, each one call and the answer.
  const model = new ScriptedModel([call(`rooms__${tool}`, {}), said, call(`rooms__${tool}`, {}), said]);
  harness = await startConsole({ model, toolSource: server.manager.tools, env });
  return { harness, server };
}

describe("a server's form in the console", () => {
  it("asks field by field; empty lines take the defaults, a bad value is asked again, and y sends it", async () => {
    const { harness, server } = await startWith("book_room");
    harness.type("book a room");
    await harness.waitFor("The MCP server rooms asks you to fill in a form: Which room, and what for?");
    await harness.waitFor("Room (choices: 1) Oak room, 2) Pine room) [Oak room]: ");
    harness.type("2");
    await harness.waitFor("Purpose (what the meeting is for) (required): ");
    harness.type("");
    await harness.waitFor("! Purpose is required");
    harness.type("retro");
    await harness.waitFor("People (whole number, 1–12) [4]: ");
    harness.type("");
    await harness.waitFor("Projector (y/n) [yes]: ");
    harness.type("n");
    await harness.waitFor("Note [none]: ");
    harness.type("");
    await harness.waitFor("send? [y/N] ");
    harness.type("y");
    await harness.waitFor("Sent to rooms.");
    await harness.waitFor('server said: {"action":"accept"');
    expect(server.log.results).toEqual([
      { action: "accept", content: { room: "pine", purpose: "retro", people: 4, projector: false, note: "none" } },
    ]);
    // The pause shows in the trace and in the run's record (the explorer), like an approval.
    const before = harness.mark();
    harness.type("/trace");
    await harness.waitFor(/\? form from rooms: sent by ada after \d/, before);
    const [record] = await harness.records();
    expect(record!.notes).toEqual([
      expect.objectContaining({ kind: "form", step: 1, detail: "form from rooms asked of ada" }),
      expect.objectContaining({ kind: "form", step: 1, detail: expect.stringMatching(/^form from rooms: sent by ada after/) }),
    ]);
  });

  it("anything but yes at send? declines, and /cancel dismisses", async () => {
    const { harness, server } = await startWith("book_room");
    harness.type("book a room");
    await harness.waitFor("Room (choices");
    harness.type("");
    await harness.waitFor("(required): ");
    harness.type("standup");
    for (const prompt of ["[4]: ", "[yes]: ", "[none]: "]) {
      await harness.waitFor(prompt);
      harness.type("");
    }
    await harness.waitFor("send? [y/N] ");
    harness.type("");
    await harness.waitFor("You declined rooms's form.");
    await harness.waitFor('server said: {"action":"decline"}');
    const again = harness.mark();
    harness.type("book another");
    await harness.waitFor("Room (choices", again);
    harness.type("/cancel");
    await harness.waitFor("You dismissed rooms's form.", again);
    await harness.waitFor('server said: {"action":"cancel"}', again);
    expect(server.log.results).toEqual([{ action: "decline" }, { action: "cancel" }]);
  });

  it("an unanswered form closes at MCP_ELICITATION_TIMEOUT_MS and the run goes on with the server's answer", async () => {
    const { harness, server } = await startWith("book_room", { MCP_ELICITATION_TIMEOUT_MS: "1000" });
    harness.type("book a room");
    await harness.waitFor("Room (choices");
    await harness.waitFor("(The form was closed before it was sent.)");
    await harness.waitFor('server said: {"action":"cancel"}');
    expect(server.log.results).toEqual([{ action: "cancel" }]);
  });

  it("a link is a line with its URL", async () => {
    const { harness, server } = await startWith("sign_in");
    harness.type("sign me in");
    await harness.waitFor("Open for rooms: https://wiki.example.test/sign-in?x=1");
    await harness.waitFor('server said: {"action":"accept"}');
    expect(server.log.results).toEqual([{ action: "accept" }]);
  });
});

describe("the MCP reference server's form in the console", () => {
  it("is shown field by field, multi-selects included, and Send with defaults reaches the server (server-everything)", async () => {
    const manager = createMcpManager([serverConfig("everything", everythingServer)], { logger: silentLogger, defaultTimeoutMs: 30_000 });
    await manager.start();
    const tool = "everything__trigger-elicitation-request";
    try {
      await whenServers(manager, () => manager.tools().some((each) => each.name === tool), 30_000);
      const said = (request: ModelRequest) => say(`server said: ${dataInside(String(request.messages.at(-1)?.content ?? ""))}`);
      harness = await startConsole({ model: new ScriptedModel([call(tool, {}), said]), toolSource: manager.tools });
      harness.type("fill in the form");
      // The server marks the tool as one that may change things: it asks for approval first, then its form.
      await harness.waitFor("approve? [y/N] ");
      harness.type("y");
      await harness.waitFor("The MCP server everything asks you to fill in a form");
      let at = await harness.waitFor("String (Your full, legal name) (required): ");
      harness.type("Ada");
      // Every other field left empty: the defaults apply, the rest stays out.
      while (true) {
        const next = await harness.waitFor(/(\]|\)|[a-z]): $|send\? \[y\/N\] $/, at);
        if (harness.text().slice(at, next).includes("send? [y/N]")) break;
        at = next;
        harness.type("");
      }
      expect(harness.text()).toContain("Untitled Multiple Select Enum (Choose your favorite instruments; choices: 1) Guitar");
      harness.type("y");
      await harness.waitFor("server said: ✅ User provided the requested information!");
      const raw = harness.text().slice(harness.text().indexOf("Raw result:"));
      expect(raw).toContain('"name": "Ada"');
      expect(raw).toContain('"untitledMultipleSelectEnum": [\n');
      expect(raw).toContain('"integer": 42');
      expect(raw).not.toContain('"email"');
    } finally {
      await manager.close();
    }
  }, 60_000);
});
