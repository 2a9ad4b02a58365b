// A server's form answered from another process on the shared Redis store (where Slack or Discord
// deliver the click to whichever process they reach): the process holding the server's question
// sees the answer and the run goes on with it; the other process checks who may answer there too.
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import type { AgentEvent, ModelRequest, PendingForm } from "../../../src/contracts/types.js";
import { silentLogger } from "../../../src/logger.js";
import { createMcpManager } from "../../../src/tools/mcp/mcp-manager.js";
import { startAskingServer, type AskingServer } from "../../support/elicitation-harness.js";
import { startMcpService, type McpService } from "../../support/mcp-harness.js";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";
import { startRedisServer, type RedisServer } from "../../support/redis-server.js";
import { describeWithRedis } from "../../support/redis-suite.js";
import { originFor } from "../../support/service-harness.js";

let redis: RedisServer | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describeWithRedis("a server's form across processes on Redis", () => {
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it("is answered on the other process, once, and only by the requester", async () => {
    const env = { APPROVAL_SECRET: "a-shared-secret-of-enough-length-0123456789" };
    const server: AskingServer = await startAskingServer();
    cleanups.push(() => server.close());
    const said = (request: ModelRequest) => say(`server said: ${request.messages.at(-1)?.content ?? ""}`);
    const asking: McpService = await startMcpService({
      model: new ScriptedModel([call("rooms__book_room", {}), said]),
      manager: server.manager,
      storeUrl: redis!.url,
      env,
    });
    cleanups.push(() => asking.close());
    const none = createMcpManager([], { logger: silentLogger, defaultTimeoutMs: 1_000 });
    const other: McpService = await startMcpService({ model: new ScriptedModel([]), manager: none, storeUrl: redis!.url, env });
    cleanups.push(() => other.close());

    let asked!: (form: PendingForm) => void;
    const form = new Promise<PendingForm>((resolve) => (asked = resolve));
    const sink = (event: AgentEvent) => void (event.type === "form_asked" && asked(event.form));
    const running = asking.service.ask({ origin: originFor("alice"), text: "book a room" }, sink);
    const { formId } = await form;

    expect((await other.service.forms.reply({ formId, by: { id: "mallory" }, action: "decline" })).kind).toBe("not_requester");
    expect((await other.service.forms.lookup(formId, { id: "alice" })).kind).toBe("open");
    const replied = await other.service.forms.reply({ formId, by: { id: "alice" }, action: "accept", inputs: { purpose: "review" } });
    expect(replied.kind).toBe("answered");
    const outcome = await running;
    expect(server.log.results).toEqual([
      { action: "accept", content: { room: "oak", purpose: "review", people: 4, projector: true, note: "none" } },
    ]);
    expect(outcome.status === "answered" && outcome.answer).toContain('"action":"accept"');
    expect(await asking.service.forms.reply({ formId, by: { id: "alice" }, action: "decline" })).toMatchObject({
      kind: "closed",
      closed: { kind: "answered", action: "accept" },
    });
  });
});
