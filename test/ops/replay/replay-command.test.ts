// `npm run replay` for one run, as an operator types it from the run page's id: `npm run replay
// <id>`, `npm run replay -- --run <id>`, and `npm run replay --run <id>` (where npm keeps `--run`
// for itself and hands over the id alone) all replay that run; an id with no record says so.
import { describe, expect, it } from "vitest";
import { replayCommand } from "../../../src/ops/replay/replay-command.js";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";
import { originFor } from "../../support/service-harness.js";
import { startRecordedService } from "../../support/records-harness.js";
import { temporaryFolder } from "../../support/temporary-folder.js";

async function replayed(argv: string[], storeUrl: string) {
  let out = "";
  let err = "";
  const code = await replayCommand(
    argv,
    { STORE_URL: storeUrl },
    (text) => (out += text),
    (text) => (err += text),
  );
  return { code, out, err };
}

describe("npm run replay for one run", () => {
  it("takes the run's id as --run or alone, and names an id that has no record", async () => {
    const folder = await temporaryFolder();
    const storeUrl = `sqlite://${folder.path}/bot.sqlite`;
    try {
      const model = new ScriptedModel([call("calculator", { expression: "6*7" }), say("42")]);
      const harness = await startRecordedService({ model, storeUrl });
      const outcome = await harness.service.ask({ origin: originFor("alice", "console:replay"), text: "what is 6*7?" }, () => {});
      await harness.record(outcome.runId);
      await harness.close();

      for (const argv of [[outcome.runId], ["--run", outcome.runId]]) {
        const result = await replayed(argv, storeUrl);
        expect({ argv, code: result.code, err: result.err }).toEqual({ argv, code: 0, err: "" });
        expect(result.out).toMatch(/^1 run: 1 would end the same/);
      }
      // One id in 64 starts with a dash (base64url): it is still an id, alone, after --run, or with --json.
      for (const argv of [["-fK8OMpp"], ["--run", "-fK8OMpp"], ["--json", "--", "--K8OMpp"], ["--K8OMpp", "--set", "AGENT_MAX_STEPS=6"]]) {
        const result = await replayed(argv, storeUrl);
        expect({ argv, code: result.code, err: result.err }).toEqual({ argv, code: 0, err: "" });
        expect(result.out).toContain("there is no record of it");
      }
      expect((await replayed(["--sinse", "24h"], storeUrl)).err).toMatch(/^Unknown option '--sinse'/);
      const missing = await replayed(["no-such-run"], storeUrl);
      expect(missing.out).toContain("no-such-run");
      expect(missing.out).toContain("there is no record of it");
      expect(await replayed(["--help"], storeUrl)).toMatchObject({ code: 0, out: expect.stringMatching(/^usage: npm run replay/) });
      expect((await replayed([], storeUrl)).err).toMatch(/^--since is required\nusage: .*npm run replay <run id>/);
    } finally {
      await folder.remove();
    }
  });
});
