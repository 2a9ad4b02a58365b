// A workspace that removed the bot, through the real service on SQLite: its paused run and its
// queued message end at once and are shown nowhere (not at the next start, not at the approval's
// expiry), with no error logged; another workspace's go on. The console stands in for a platform:
// its conversation keys here take the form every surface's do (`<surface>:<workspace>:…`).
import { describe, expect, it } from "vitest";
import { call, ScriptedModel } from "../../support/model-scripted.js";
import type { RunPresenter } from "../../../src/runs/api/presenting.js";
import type { RunOutcome, TaskOrigin } from "../../../src/contracts/types.js";
import { noteTool, startService, type ServiceHarness } from "../../support/service-harness.js";
import { capturingLogger } from "../../support/capturing-logger.js";
import { until } from "../../support/until.js";
import { usePerTest } from "../../support/per-test.js";

const { sqliteUrl, closeAfter } = usePerTest();

const origin = (workspace: string, conversation: string): TaskOrigin => ({
  surface: "console",
  conversationKey: `console:${workspace}:${conversation}`,
  requester: { id: "alice" },
  scope: { dm: false, workspace, roles: [] },
  place: {},
});

function shown(harness: ServiceHarness, tools = harness.tools): Array<{ conversationKey: string; outcome: RunOutcome }> {
  const seen: Array<{ conversationKey: string; outcome: RunOutcome }> = [];
  harness.service.attach("console", {
    tools,
    present: (from): RunPresenter => ({
      sink: () => {},
      async finish(outcome) {
        seen.push({ conversationKey: from.conversationKey, outcome });
        return { messageId: "shown" };
      },
      fail: async (error) => {
        throw error;
      },
    }),
    expired: (pending, outcome) => void seen.push({ conversationKey: pending.origin.conversationKey, outcome }),
  });
  return seen;
}

describe("ending a removed workspace's runs", () => {
  it("ends its paused and queued runs shown nowhere; another workspace's run and wait as before", async () => {
    const storeUrl = sqliteUrl();
    const note = noteTool();
    const model = new ScriptedModel([], {
      whenExhausted: (request) =>
        String(request.messages.at(-1)?.content).includes("post") ? call("post_note", { text: "hello" }) : { text: "answered" },
    });
    const first = await startService({ model, storeUrl, tools: [note.tool], start: false, env: { APPROVAL_TIMEOUT_MS: "1500" } });
    closeAfter(first);
    const firstSeen = shown(first, [note.tool]);
    await first.service.start();
    await first.service.submit({ origin: origin("W1", "a"), text: "post it" }, "W1:a");
    await first.service.submit({ origin: origin("W2", "a"), text: "post it" }, "W2:a");
    await until(() => firstSeen.length === 2, "both runs paused");
    await first.service.close(200);

    // The next process: two messages wait in its queue, one per workspace, when W1 removes the bot.
    const { logger, lines } = capturingLogger("warn");
    const second = await startService({ model, storeUrl, tools: [note.tool], start: false, logger, env: { APPROVAL_TIMEOUT_MS: "1500" } });
    closeAfter(second);
    const seen = shown(second, [note.tool]);
    await second.service.submit({ origin: origin("W1", "b"), text: "hello" }, "W1:b");
    await second.service.submit({ origin: origin("W2", "b"), text: "hello" }, "W2:b");
    expect(await second.service.endWorkspaceRuns("console", ["W1"])).toEqual({ queued: 1, paused: 1 });
    expect(await second.service.endWorkspaceRuns("console", ["W1"])).toEqual({ queued: 0, paused: 0 });
    await second.service.start();

    await until(() => seen.some((entry) => entry.outcome.status === "answered"), "W2's queued message answered");
    expect(await second.service.waitingApprovals("console:W1:a")).toEqual([]);
    expect(await second.service.waitingApprovals("console:W2:a")).toHaveLength(1);
    // W2's approval expires and is shown; W1's is gone and shows nothing.
    await until(() => seen.length === 2, "W2's expiry shown", 10_000);
    expect(seen.map((entry) => [entry.conversationKey, entry.outcome.status])).toEqual([
      ["console:W2:b", "answered"],
      ["console:W2:a", "answered"],
    ]);
    expect(note.posted).toEqual([]);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  });
});
