// The model seam with parts: image tokens, vision by model name, the loop's question with its
// files, checkpoints that keep references (and load today's records), the stored-image wrapper,
// and the readers of content (summary, compaction, the demo model).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { imageTiles, imageTokenRule, imageTokens } from "../../src/tokens/image-tokens.js";
import { runAgent } from "../../src/agent/loop/loop.js";
import { createDemoModel } from "../../src/agent/models/model-demo.js";
import { say, ScriptedModel } from "../support/model-scripted.js";
import { modelSeesImages } from "../../src/agent/models/model-vision.js";
import { emptyGuardCounters, RunStateSchema, type RunState } from "../../src/agent/loop/run-state.js";
import { flattenForSummary } from "../../src/agent/context/summary.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import type { ChatMessage, ContentPart, ModelRequest } from "../../src/contracts/types.js";
import { createFileStore } from "../../src/files/file-store.js";
import { withStoredImages } from "../../src/files/stored-images.js";
import { createCheckpointStore } from "../../src/runs/worker/checkpoint-store.js";
import { createIntakeStore } from "../../src/runs/intake/intake-store.js";
import { consoleOrigin, loopDeps } from "../support/loop-harness.js";
import { mapStore } from "../support/map-store.js";
import { fixturePath } from "../support/repo-paths.js";

const info = { id: "F1", name: "shot.png", mime: "image/png", size: 1_000 };
const storedImage: ContentPart = {
  type: "image",
  file: info,
  mime: "image/png",
  width: 1_200,
  height: 800,
  source: { stored: { conversationKey: "console:test", fileId: "F1" } },
};
const csvPart: ContentPart = {
  type: "file",
  file: { id: "F2", name: "a.csv", mime: "text/csv" },
  text: "[file F2]\n3-4,5*6",
  status: "read",
};

describe("image tokens", () => {
  it("follow OpenAI's tile rule: fit in 2048, shortest side to 768, 512-px tiles", () => {
    expect(imageTiles(512, 512)).toBe(1);
    expect(imageTiles(1_200, 800)).toBe(6);
    expect(imageTiles(4_000, 3_000)).toBe(4);
    expect(imageTiles(100, 5_000)).toBe(4);
    expect(imageTokens(1_200, 800, imageTokenRule("gpt-4o"))).toBe(85 + 170 * 6);
    expect(imageTokens(512, 512, imageTokenRule("gpt-4o-mini"))).toBe(2_833 + 5_667);
    expect(imageTokenRule("llava:13b")).toEqual(imageTokenRule("gpt-4o"));
  });

  it("count in a message beside its text", () => {
    const counter = TokenCounter.forModel("gpt-4o");
    const text: ChatMessage = { role: "user", content: "what is this?" };
    const withImage: ChatMessage = { role: "user", content: [{ type: "text", text: "what is this?" }, storedImage] };
    expect(counter.countMessage(withImage) - counter.countMessage(text)).toBe(1_105);
  });
});

describe("vision by model name", () => {
  it("knows the families, and OPENAI_VISION overrides", () => {
    for (const name of [
      "gpt-4o",
      "gpt-4o-mini",
      "openai/gpt-4.1-mini",
      "gpt-5",
      "o3",
      "llava:13b",
      "qwen2.5-vl-7b",
      "llama3.2-vision",
      "gemma3:4b",
    ])
      expect([name, modelSeesImages(name, "auto")]).toEqual([name, true]);
    for (const name of ["gpt-3.5-turbo", "gpt-4", "o1-mini", "o3-mini", "llama3.1", "qwen2.5", "offline-demo", "scripted"])
      expect([name, modelSeesImages(name, "auto")]).toEqual([name, false]);
    expect(modelSeesImages("gpt-3.5-turbo", "on")).toBe(true);
    expect(modelSeesImages("gpt-4o", "off")).toBe(false);
  });
});

describe("the question with its files", () => {
  it("is one user message of parts; the first checkpoint keeps the image as a reference; the preparation's time counts", async () => {
    const model = new ScriptedModel([say("seen")]);
    const saved: RunState[] = [];
    const { outcome } = await runAgent(
      {
        runId: "r1",
        origin: consoleOrigin,
        question: "look",
        context: [{ role: "system", content: "s" }],
        attachments: async () => {
          await new Promise((resolve) => setTimeout(resolve, 30));
          return [storedImage];
        },
      },
      loopDeps(model),
      () => {},
      { checkpoint: async (state) => void saved.push(state) },
    );
    expect(outcome.status).toBe("answered");
    expect(model.requests[0]!.messages[1]).toEqual({ role: "user", content: [{ type: "text", text: "look" }, storedImage] });
    expect(saved[0]!.elapsedMs).toBeGreaterThanOrEqual(25);
    expect(RunStateSchema.safeParse(saved[0]).success).toBe(true);
  });

  it("a message of files alone has no empty text part; the preparation is aborted at the run's deadline", async () => {
    let aborted = false;
    const model = new ScriptedModel([say("ok")]);
    await runAgent(
      {
        runId: "r2",
        origin: consoleOrigin,
        question: "",
        context: [],
        attachments: (signal) =>
          new Promise((resolve) =>
            signal.addEventListener("abort", () => {
              aborted = true;
              resolve([csvPart]);
            }),
          ),
      },
      loopDeps(model, { guards: { runTimeoutMs: 1_000 } }),
      () => {},
    );
    expect(aborted).toBe(true);
    // The deadline passed while the files were read: the run ends with its summary, asked with the question's parts first.
    const question = model.requests[0]?.messages.find((message) => message.role === "user");
    const parts = question?.content as readonly { readonly type: string; readonly text?: string }[];
    expect(parts[0]).toEqual(csvPart);
    expect(parts.some((part) => part.type === "text" && part.text === "")).toBe(false);
  });
});

describe("stored records", () => {
  const fixture = JSON.parse(readFileSync(fixturePath("checkpoint-and-intake-main-0b5175d.json"), "utf8")) as Record<string, unknown>;
  const seeded = () => {
    const store = mapStore();
    for (const [key, value] of Object.entries(fixture)) store.data.set(key, value);
    return store;
  };

  it("today's checkpoints and intake records (string content, no files) still load", async () => {
    const store = seeded();
    const loaded = await createCheckpointStore(store).load("run-fixture-1");
    expect(loaded).toMatchObject({ kind: "found", parts: 2, state: { question: "what is 2+2?", steps: [{ calls: [{ result: "4" }] }] } });
    if (loaded.kind === "found") expect(loaded.state.messages.at(-1)).toEqual({ role: "tool", toolCallId: "c1", content: "4" });
    const intake = await createIntakeStore(store).load("intake-fixture-1");
    expect(intake).toMatchObject({ kind: "found", record: { task: { text: "what is 2+2?" } } });
  });

  it("a checkpoint with parts round-trips, and holds the image's reference, never its bytes", async () => {
    const store = mapStore();
    const state: RunState = {
      version: 1,
      runId: "r-parts",
      origin: consoleOrigin,
      question: "look",
      messages: [{ role: "user", content: [{ type: "text", text: "look" }, storedImage, csvPart] }],
      steps: [],
      guards: emptyGuardCounters,
      usage: { promptTokens: 0, completionTokens: 0 },
      elapsedMs: 1,
    };
    await createCheckpointStore(store).writer("r-parts").save(state);
    const raw = JSON.stringify([...store.data.values()]);
    expect(raw).toContain('"stored":{"conversationKey":"console:test","fileId":"F1"}');
    expect(raw.length).toBeLessThan(2_000);
    expect(await createCheckpointStore(store).load("r-parts")).toMatchObject({ kind: "found", state: { messages: state.messages } });
  });

  it("a part that is not one is refused on load", () => {
    const bad = { role: "user", content: [{ type: "image", file: info, mime: "image/bmp", width: 1, height: 1, source: { data: "x" } }] };
    expect(RunStateSchema.shape.messages.safeParse([bad]).success).toBe(false);
  });
});

describe("stored images in requests", () => {
  it("are resolved from the file store just before the call; one the store lost becomes a note", async () => {
    const files = createFileStore(mapStore());
    await files.save(
      "console:test",
      {
        version: 1,
        kind: "image",
        id: "F1",
        name: "shot.png",
        mime: "image/png",
        size: 3,
        storedAt: 1,
        imageMime: "image/png",
        width: 1_200,
        height: 800,
        originalWidth: 1_200,
        originalHeight: 800,
      },
      { mime: "image/png", data: "iVBORw0K" },
    );
    const inner = new ScriptedModel([say("a"), say("b")]);
    const model = withStoredImages(inner, files);
    const lost: ContentPart = { ...storedImage, source: { stored: { conversationKey: "console:test", fileId: "GONE" } } };
    const request: ModelRequest = { messages: [{ role: "user", content: [storedImage, lost] }], tools: [] };
    await model.complete(request, new AbortController().signal);
    const sent = inner.requests[0]!.messages[0]!.content as readonly ContentPart[];
    expect(sent[0]).toMatchObject({ type: "image", source: { data: "iVBORw0K" } });
    expect(sent[1]).toMatchObject({ type: "file", status: "unreadable", text: expect.stringContaining("no longer kept") });
    const plain: ModelRequest = { messages: [{ role: "user", content: "hi" }], tools: [] };
    await model.complete(plain, new AbortController().signal);
    expect(inner.requests[1]!.messages).toEqual(plain.messages);
  });
});

describe("readers of content", () => {
  it("the summary joins parts without losing an image", () => {
    const flat = flattenForSummary([
      { role: "user", content: [{ type: "text", text: "look" }, storedImage] },
      { role: "tool", toolCallId: "c1", content: "done" },
    ]);
    expect(flat).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          storedImage,
          { type: "text", text: "\n\n" },
          { type: "text", text: "[tool result c1]\ndone" },
        ],
      },
    ]);
  });

  it("the demo model says it can't read files, and a CSV's numbers are not taken for arithmetic", async () => {
    const reply = await createDemoModel().complete(
      {
        messages: [{ role: "user", content: [{ type: "text", text: "summarise" }, csvPart] }],
        tools: [{ name: "calculator", description: "", parameters: {} }],
      },
      new AbortController().signal,
    );
    expect(reply.toolCalls).toEqual([]);
    expect(reply.content).toMatch(/^I can't read attached files or see images \("a.csv"\)\. I am the offline demo model/);
  });
});
