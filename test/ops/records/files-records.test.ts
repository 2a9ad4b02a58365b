// A run whose question brought files is recorded with its question as text: an image is its one
// line, never its bytes (a record stays within RUN_RECORD_MAX_BYTES and holds no image data),
// and the record loads with today's schema.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { say, ScriptedModel } from "../../support/model-scripted.js";
import { originFor } from "../../support/service-harness.js";
import { useServiceHarnesses } from "../../support/service-harness.js";
import { startRecordedService } from "../../support/records-harness.js";
import { GOOD_TOKEN, startFakeFileServer, type FakeFileServer } from "../../support/fake-file-server.js";
import { described, png, urlFiles } from "../../support/sample-files.js";

const services = useServiceHarnesses();
let host: FakeFileServer;
beforeAll(async () => {
  host = await startFakeFileServer();
});
afterAll(() => host.close());

describe("the record of a run with files", () => {
  it("keeps the first request's question as text, with one line per image and no image data", async () => {
    const model = new ScriptedModel([say("A red square.")]);
    const harness = await startRecordedService({
      model,
      storeUrl: services.sqliteUrl(),
      env: { OPENAI_VISION: "on" },
      files: urlFiles({ token: GOOD_TOKEN, origins: [host.url] }),
    });
    try {
      const url = host.serve("/files/shot.png", { kind: "file", body: await png(64, 48), type: "image/png", private: true });
      const outcome = await harness.service.ask(
        {
          origin: originFor("alice", "console:records-files"),
          text: "what is this?",
          files: [described("FSHOT", "shot.png", "image/png", url)],
        },
        () => {},
      );
      const sentParts = model.requests[0]!.messages.at(-1)!.content;
      expect(Array.isArray(sentParts) && sentParts.some((part) => part.type === "image")).toBe(true);
      const record = await harness.record(outcome.runId);
      const question = record.firstRequest?.at(-1);
      expect(question?.role).toBe("user");
      expect(typeof question?.content).toBe("string");
      expect(question?.content).toContain("what is this?");
      expect(question?.content).toContain('[image FSHOT: "shot.png" (64×48)]');
      expect(JSON.stringify(record)).not.toContain("base64");
    } finally {
      await harness.close();
    }
  });
});
