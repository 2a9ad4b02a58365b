// Work that nobody in this process could see is not done: a message whose surface has no
// presenter here, or an expired approval whose surface shows no expiry, is not run; it stays
// unfinished, the log says why, and it is tried again (bounded) until a surface can show it.
import { afterEach, describe, expect, it } from "vitest";
import { call, ScriptedModel, say } from "../../support/model-scripted.js";
import type { RunOutcome } from "../../../src/contracts/types.js";
import { intakeIdFor } from "../../../src/runs/intake/intake-store.js";
import { capturingLogger, type CapturedLog } from "../../support/capturing-logger.js";
import { temporaryFolder } from "../../support/temporary-folder.js";
import { until } from "../../support/until.js";
import { noteTool, originFor, startService, type ServiceHarness } from "../../support/service-harness.js";
import { recordingConsole } from "../../support/recording-console.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function harness(model: ScriptedModel, clock?: () => number): Promise<{ harness: ServiceHarness; lines: CapturedLog[] }> {
  const folder = await temporaryFolder();
  cleanup.push(() => folder.remove());
  const { logger, lines } = capturingLogger();
  const started = await startService({
    model,
    storeUrl: `sqlite://${folder.path}/runs.sqlite`,
    logger,
    tools: [noteTool().tool],
    ...(clock ? { clock } : {}),
  });
  cleanup.push(() => started.close());
  return { harness: started, lines };
}

const saysWhy = (lines: CapturedLog[], surface: string) =>
  lines.some(
    (line) =>
      line.level === 40 &&
      /trying it again/.test(line.msg) &&
      String((line.err as { message?: string })?.message).includes(`no ${surface} surface`),
  );

describe("a queued message with no presenter for its surface", () => {
  it("is not run or marked done; the log says why; once a presenter is attached a retry answers it, once", async () => {
    const model = new ScriptedModel([say("the answer")]);
    const { harness: bot, lines } = await harness(model);
    const origin = originFor("alice", "console:unshown");
    expect(await bot.service.submit({ origin, text: "hello" }, "C1:1.0001")).toMatchObject({ kind: "accepted" });
    await until(() => saysWhy(lines, "console"), "the log line saying why it was not run");
    expect(model.requests).toHaveLength(0);
    expect(await bot.store.get(`intake:${intakeIdFor("console", "C1:1.0001")}`)).toMatchObject({ state: "received" });

    const { hooks, shown } = recordingConsole();
    bot.service.attach("console", hooks);
    await until(() => shown.length === 1, "the retry to answer it", 10_000);
    expect(shown).toMatchObject([{ status: "answered", answer: "the answer" }]);
    await until(async () => (await bot.service.submit({ origin, text: "hello" }, "C1:1.0001")).kind === "duplicate", "the record done");
    expect(model.requests).toHaveLength(1);
  });
});

describe("an expired approval whose surface shows no expiry here", () => {
  it("is not ended unseen: retried until an expiry handler is attached, which then gets its summary", async () => {
    let now = 1_700_000_000_000;
    const model = new ScriptedModel([call("post_note", { text: "hi" }, "w1"), say("Nobody approved, so nothing was posted.")]);
    const { harness: bot, lines } = await harness(model, () => now);
    const paused = await bot.service.ask({ origin: originFor("alice", "console:expiry"), text: "post hi" }, () => {});
    expect(paused.status).toBe("paused");
    now += bot.config.approvalTimeoutMs + 1;
    expect(await bot.service.sweepExpiredApprovals()).toBe(0);
    await until(() => saysWhy(lines, "console"), "the log line saying why the expiry was not shown");
    expect(model.requests).toHaveLength(1);

    const summaries: RunOutcome[] = [];
    bot.service.attach("console", { tools: [noteTool().tool], expired: (_pending, outcome) => void summaries.push(outcome) });
    await until(() => summaries.length === 1, "the retry to end the run with its summary", 10_000);
    expect(summaries).toMatchObject([{ status: "answered", answer: "Nobody approved, so nothing was posted." }]);
  });
});
