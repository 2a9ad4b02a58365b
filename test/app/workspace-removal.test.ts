// A Slack workspace that uninstalls the app, with the product as startApp wires it (installs on its
// port, the fake Slack, the model behind the fake OpenAI server): its paused run ends shown nowhere,
// and everything the store held of it (history, facts, run records, approvals, audit entries but
// the one line of the removal, people's connections, votes, files, counters) is gone, found nowhere in
// the SQLite file; the other workspace keeps all of its own, and a reinstall starts clean.
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../../src/memory/keyv-store.js";
import { silentLogger } from "../../src/logger.js";
import { createConnectionStore } from "../../src/tools/mcp/auth/connection-store.js";
import { createSealedBox } from "../../src/tools/mcp/auth/sealed-box.js";
import { createAuditLog } from "../../src/governance/audit-log.js";
import { createFeedbackBook } from "../../src/memory/feedback.js";
import { textReply, toolCallReply, type RecordedRequest } from "../support/fake-openai-server.js";
import { appUninstalledEvent, postEvent } from "../support/fake-slack-requests.js";
import { ALPHA, BETA, install } from "../support/slack-installs.js";
import { startInstalledProduct, type InstalledProduct } from "../support/installed-product-harness.js";
import { until } from "../support/until.js";
import { bookedErasures, erasedAtOnce } from "../support/booked-erasures.js";

let product: InstalledProduct | undefined;
afterEach(async () => {
  await product?.close();
  product = undefined;
});

/** What each person tells the bot, and what the model makes of it: a name to remember, a note to post (a write, paused). */
function respond(request: RecordedRequest) {
  const text = JSON.stringify(request.body.messages);
  if (request.body.response_format?.type === "json_object")
    return textReply(JSON.stringify({ facts: text.includes("Anna") ? ["The person is called Anna."] : ["The person is called Bert."] }));
  const question = JSON.stringify(request.body.messages.filter((message: { role: string }) => message.role === "user").at(-1));
  if (question.includes("post a note"))
    return toolCallReply([{ name: "post_message", args: { channel: text.includes("C0ALPHA") ? "C0ALPHA" : "C0BETA", text: "hello all" } }]);
  return textReply(text.includes("Anna") && !text.includes("called Anna") ? "Nice to meet you." : "Noted.");
}

describe("a workspace that uninstalls the app", () => {
  it("has its paused run ended and all its data deleted; the other workspace keeps its own; a reinstall starts clean", async () => {
    product = await startInstalledProduct(respond, { MEMORY_EXTRACT_FACTS: "true" });
    const running = product;
    const { slack, model } = running;
    expect((await install(running.base, slack, ALPHA)).status).toBe(200);
    expect((await install(running.base, slack, BETA)).status).toBe(200);

    // Each workspace: a name remembered (history, a fact, a run record), a write waiting for approval (its card, the audit).
    const alphaThread = await running.mention(ALPHA, "U0ANNA", "I am Anna", "Nice to meet you.");
    await running.mention(BETA, "U0BERT", "I am Bert", "Noted.");
    await running.mention(ALPHA, "U0ANNA", "post a note", "wants to run");
    await running.mention(BETA, "U0BERT", "post a note", "wants to run");
    const side = await openStore(running.storeUrl, silentLogger);
    try {
      // A person's connection to an MCP server in each workspace.
      const connections = createConnectionStore(
        side,
        createSealedBox(async () => Buffer.alloc(32, 3)),
        Date.now,
      );
      await connections.saveTokens({ surface: "slack", workspace: "T0ALPHA", person: "U0ANNA" }, "notes", {
        access_token: "alpha-access",
        token_type: "bearer",
      });
      await connections.saveTokens({ surface: "slack", workspace: "T0BETA", person: "U0BERT" }, "notes", {
        access_token: "beta-access",
        token_type: "bearer",
      });
      // A 👍 in each workspace.
      const feedback = createFeedbackBook(side);
      for (const [workspace, person] of [
        ["T0ALPHA", "U0ANNA"],
        ["T0BETA", "U0BERT"],
      ] as const)
        await feedback.record({
          runId: `run-of-${person}`,
          surface: "slack",
          conversationKey: `slack:${workspace}:C${workspace.slice(1)}:1700500000.000100`,
          workspace,
          person: { id: person },
          rating: "up",
          guard: "none",
          at: Date.now(),
        });
      await until(async () => (await running.rowsNaming("The person is called Anna.")).length > 0, "Anna's fact");
      await until(async () => (await running.rowsNaming("The person is called Bert.")).length > 0, "Bert's fact");
      await until(
        async () => (await createAuditLog(side).list({})).filter((entry) => entry.kind === "approval_requested").length === 2,
        "both approvals audited",
      );
      const betaBefore = await running.rowsNaming("T0BETA");

      const callsBefore = slack.calls.length;
      const removedAt = Date.now();
      expect((await postEvent(`${running.base}/slack/events`, appUninstalledEvent({ team: "T0ALPHA" }))).status).toBe(200);
      // Carried out at once, and booked once more for when a run in progress at the removal has written all it writes as it ends.
      await until(() => erasedAtOnce(side, removedAt), "the erasure carried out", 10_000);
      expect((await bookedErasures(side)).map((booked) => booked.workspace)).toEqual(["T0ALPHA"]);

      // Nothing of Alpha is left but the one line of its removal (and the second erasure booked); nothing was posted to it on the way.
      const left = [...(await running.rowsNaming("T0ALPHA")), ...(await running.rowsNaming("U0ANNA"))];
      expect(left.filter((row) => row.includes("workspace_removed"))).toHaveLength(1);
      expect(left.filter((row) => !row.includes("workspace_removed") && !row.includes("workspace:erasures"))).toEqual([]);
      expect(await running.rowsNaming("C0ALPHA")).toEqual([]);
      expect(await running.rowsNaming("called Anna")).toEqual([]);
      expect(slack.calls.slice(callsBefore).filter((call) => call.workspace === "T:T0ALPHA")).toEqual([]);
      // Beta's data is all there.
      expect(await running.rowsNaming("T0BETA")).toEqual(betaBefore);
      expect(await connections.servers({ surface: "slack", workspace: "T0BETA", person: "U0BERT" })).toEqual(["notes"]);
      expect(await feedback.totals()).toEqual({ up: 2, down: 0 });
      expect(await feedback.totals({ surface: "slack", workspace: "T0BETA" })).toEqual({ up: 1, down: 0 });
      expect((await createAuditLog(side).list({})).map((entry) => entry.kind).sort()).toEqual(["approval_requested", "workspace_removed"]);
    } finally {
      await side.close();
    }

    // Installed again, the same thread starts from nothing: no earlier turn, no fact.
    expect((await install(running.base, slack, ALPHA)).status).toBe(200);
    const asked = model.requests.length;
    await running.mention(ALPHA, "U0ANNA", "who am I?", "Noted.", alphaThread);
    const request = JSON.stringify(model.requests.slice(asked).find((entry) => entry.body.response_format === undefined)?.body.messages);
    expect(request).toContain("who am I?");
    expect(request).not.toContain("Anna");
  });

  it("with UNINSTALL_RETENTION_DAYS, keeps the data until then; installed again meanwhile, it starts clean", async () => {
    product = await startInstalledProduct(respond, { MEMORY_EXTRACT_FACTS: "true", UNINSTALL_RETENTION_DAYS: "30" });
    const running = product;
    const { slack } = running;
    expect((await install(running.base, slack, ALPHA)).status).toBe(200);
    await running.mention(ALPHA, "U0ANNA", "I am Anna", "Nice to meet you.");
    await until(async () => (await running.rowsNaming("The person is called Anna.")).length > 0, "Anna's fact");
    const side = await openStore(running.storeUrl, silentLogger);
    try {
      await postEvent(`${running.base}/slack/events`, appUninstalledEvent({ team: "T0ALPHA" }));
      await until(async () => (await side.setMembers("workspace:erasures")).length === 1, "the erasure booked");
      expect(await running.rowsNaming("The person is called Anna.")).toHaveLength(1);

      // The install page answers once the earlier data is gone.
      expect((await install(running.base, slack, ALPHA)).status).toBe(200);
      expect(await side.setMembers("workspace:erasures")).toEqual([]);
      expect(await running.rowsNaming("called Anna")).toEqual([]);
      expect(await running.rowsNaming("C0ALPHA")).toEqual([]);
    } finally {
      await side.close();
    }
  });
});
