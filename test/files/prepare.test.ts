// prepareFiles, the entry point the surfaces call, against a file host like the platforms'
// (real fetch on 127.0.0.1) and a real token counter: what the model gets for each kind of
// file, the limits, the store that spares a second download, and read_attachment reading on.
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import type { ContentPart, TaskOrigin, ToolContext } from "../../src/contracts/types.js";
import { loadConfig } from "../../src/config.js";
import type { FileDescriptor } from "../../src/files/file-ref.js";
import { createFileStore, type FileStore } from "../../src/files/file-store.js";
import { attachedFileLines } from "../../src/files/history-lines.js";
import { prepareFiles, type PrepareOptions } from "../../src/files/prepare-files.js";
import { readAttachmentTool } from "../../src/tools/files/read-attachment.js";
import { GOOD_TOKEN, NO_SCOPE_TOKEN, startFakeFileServer, type FakeFileServer } from "../support/fake-file-server.js";
import { described, encryptedPdf, pdf, png, testFileReader, urlFiles } from "../support/sample-files.js";
import { mapStore } from "../support/map-store.js";

const CONVERSATION = "slack:T1:C1:1700000000.000100";
const counter = TokenCounter.forModel("gpt-4o");
const origin: TaskOrigin = { surface: "slack", conversationKey: CONVERSATION, requester: { id: "U1" }, place: {} };

const reader = testFileReader();
afterAll(() => reader.close());
let host: FakeFileServer;
let files: FileStore;
beforeEach(async () => {
  host = await startFakeFileServer();
  files = createFileStore(mapStore());
});
afterEach(() => host.close());

function prepare(descriptors: readonly FileDescriptor[], more: Partial<PrepareOptions> & { token?: string } = {}) {
  const source = urlFiles({ token: more.token ?? GOOD_TOKEN, origins: [host.url] });
  return prepareFiles(
    descriptors.map((file) => source.refFor(file, origin)),
    {
      conversationKey: CONVERSATION,
      limits: loadConfig({}).files,
      signal: new AbortController().signal,
      vision: false,
      counter,
      store: files,
      reader,
      ...more,
    },
  );
}

const serveText = (name: string, text: string, type = "text/plain") =>
  described(
    `F${name.replace(/\W/g, "")}`,
    name,
    type,
    host.serve(`/files/${name}`, { kind: "file", body: Buffer.from(text), type, private: true }),
  );
const textOf = (part: ContentPart | undefined) => (part && part.type !== "image" ? part.text : "");

describe("text-like files", () => {
  it("a CSV reaches the model whole, under a header with its id, name, type and size", async () => {
    const csv = "city,visits\nParis,3\nTokyo,5\n";
    const { parts, outcomes } = await prepare([serveText("visits.csv", csv, "text/csv")]);
    expect(textOf(parts[0])).toBe(`[file Fvisitscsv: "visits.csv" (text/csv, 28 bytes); complete]\n${csv}`);
    expect(parts[0]).toMatchObject({ type: "file", status: "read" });
    expect(outcomes).toEqual([
      { status: "read", file: { id: "Fvisitscsv", name: "visits.csv", mime: "text/csv", size: 28 }, as: "text", cut: false, reused: false },
    ]);
  });

  it("a log over the cap is cut with a header that says where; read_attachment reads on from exactly there", async () => {
    const log = Array.from(
      { length: 4_000 },
      (_, line) => `2026-12-01T10:00:${String(line % 60).padStart(2, "0")} worker-${line} handled job ${line * 7}`,
    ).join("\n");
    const { parts, outcomes } = await prepare([serveText("worker.log", log, "application/octet-stream")], { tokenBudget: 1_000 });
    const text = textOf(parts[0]);
    const header = text.split("\n", 1)[0]!;
    expect(header).toMatch(/^\[file Fworkerlog: "worker.log" \(application\/octet-stream, [\d.]+ KB\); cut after [\d,]+ tokens \(/);
    const from = Number(/"from_token":(\d+)/.exec(header)?.[1]);
    expect(from).toBeGreaterThan(900);
    expect(from).toBeLessThanOrEqual(1_000);
    expect(outcomes[0]).toMatchObject({ status: "read", cut: true });
    const shown = text.slice(header.length + 1);
    expect(log.startsWith(shown)).toBe(true);

    const tool = readAttachmentTool({ files, counter, chunkTokens: 500 });
    const context = { signal: new AbortController().signal, runId: "r1", origin } satisfies ToolContext;
    const next = String(await tool.execute({ file: "Fworkerlog", from_token: from }, context));
    const [nextHeader, ...rest] = next.split("\n");
    expect(nextHeader).toMatch(new RegExp(`tokens ${from.toLocaleString("en-US")}–[\\d,]+: read on with read_attachment`));
    const continued = rest.join("\n");
    expect(log.slice(shown.length).startsWith(continued)).toBe(true);
    expect(continued.length).toBeGreaterThan(1_000);
  });

  it("the cap is shared: a short CSV stays whole beside a huge log, which is cut", async () => {
    const { outcomes } = await prepare(
      [serveText("huge.log", "line of a log\n".repeat(20_000)), serveText("small.csv", "a,b\n1,2\n", "text/csv")],
      { tokenBudget: 2_000 },
    );
    expect(outcomes.map((outcome) => outcome.status === "read" && outcome.cut)).toEqual([true, false]);
  });

  it("an unsupported type is a note with name, type and size, and is not downloaded", async () => {
    const zip = described(
      "F9",
      "archive.zip",
      "application/zip",
      host.serve("/files/archive.zip", { kind: "file", body: Buffer.alloc(10) }),
      10,
    );
    const { parts, outcomes } = await prepare([zip]);
    expect(textOf(parts[0])).toBe(
      '[file F9: "archive.zip" (application/zip, 10 bytes) is attached but was not read: files of type application/zip can\'t be read]',
    );
    expect(outcomes[0]).toMatchObject({ status: "not_used", reason: "unsupported_type" });
    expect(host.requests).toHaveLength(0);
  });
});

describe("limits", () => {
  it("a 25 MB file is refused before any download", async () => {
    const big = described(
      "F25",
      "dump.log",
      "text/plain",
      host.serve("/files/dump.log", { kind: "stream", bytes: 25 * 1024 * 1024 }),
      25 * 1024 * 1024,
    );
    const { outcomes } = await prepare([big]);
    expect(outcomes[0]).toMatchObject({
      status: "not_used",
      reason: "too_big",
      detail: expect.stringContaining("25.0 MB, more than the limit of 20.0 MB"),
    });
    expect(host.requests).toHaveLength(0);
  });

  it("of 9 files, 8 are read and the 9th is named as skipped (never fetched)", async () => {
    const nine = Array.from({ length: 9 }, (_, index) => serveText(`part-${index + 1}.txt`, `part ${index + 1}`));
    const { parts, outcomes } = await prepare(nine);
    expect(outcomes.filter((outcome) => outcome.status === "read")).toHaveLength(8);
    expect(outcomes[8]).toMatchObject({
      status: "not_used",
      reason: "too_many",
      file: { name: "part-9.txt" },
      detail: "only the first 8 files of a message are read (FILE_MAX_PER_MESSAGE)",
    });
    expect(textOf(parts[8])).toContain('"part-9.txt"');
    expect(host.hits("/files/part-9.txt")).toBe(0);
  });

  it("a channel with files: false reads none and says so for each", async () => {
    const { outcomes } = await prepare([serveText("a.txt", "a"), serveText("b.txt", "b")], { enabled: false });
    expect(outcomes.map((outcome) => outcome.status === "not_used" && outcome.reason)).toEqual(["files_off", "files_off"]);
    expect(host.requests).toHaveLength(0);
  });

  it("a token without files:read: the note names the missing scope, the login page never reaches the model", async () => {
    const { parts, outcomes } = await prepare([serveText("notes.txt", "secret notes")], { token: NO_SCOPE_TOKEN });
    expect(outcomes[0]).toMatchObject({
      status: "not_used",
      reason: "missing_scope",
      detail: "the platform answered with a login page: the files:read scope is missing",
    });
    expect(textOf(parts[0])).not.toContain("Sign in");
  });
});

describe("the store", () => {
  it("a file read once is taken from the store next time: no second download", async () => {
    const csv = serveText("visits.csv", "a,b\n", "text/csv");
    await prepare([csv]);
    const again = await prepare([csv]);
    expect(again.outcomes[0]).toMatchObject({ status: "read", reused: true });
    expect(host.hits("/files/visits.csv")).toBe(1);
    expect(await files.list(CONVERSATION)).toEqual(["Fvisitscsv"]);
    expect(await files.forget(CONVERSATION)).toBe(1);
    expect(await files.load(CONVERSATION, "Fvisitscsv")).toBeUndefined();
  });

  it("history keeps one line per file, not the file", async () => {
    const { parts } = await prepare([serveText("visits.csv", "a,b\n".repeat(10), "text/csv"), serveText("x.zip", "zz", "application/zip")]);
    expect(attachedFileLines([{ role: "user", content: [{ type: "text", text: "look" }, ...parts] }])).toEqual([
      '[attached file Fvisitscsv: "visits.csv" (text/csv, 40 bytes) — read whole]',
      '[attached file Fxzip: "x.zip" (application/zip) — not read: unsupported type]',
    ]);
  });
});

describe("images", () => {
  const serveImage = async () =>
    described(
      "FIMG",
      "screenshot.png",
      "image/png",
      host.serve("/files/shot.png", { kind: "file", body: await png(4_000, 3_000), type: "image/png", private: true }),
    );

  it("for a vision model: an image part that refers to the stored, resized image (no bytes in the message)", async () => {
    const { parts, outcomes } = await prepare([await serveImage()], { vision: true });
    const image = parts.find((part) => part.type === "image");
    expect(image).toMatchObject({
      mime: "image/png",
      width: 2_048,
      height: 1_536,
      source: { stored: { conversationKey: CONVERSATION, fileId: "FIMG" } },
    });
    expect(JSON.stringify(parts).length).toBeLessThan(2_000);
    expect((await files.loadImage(CONVERSATION, "FIMG"))?.data.length).toBeGreaterThan(1_000);
    expect(outcomes[0]).toMatchObject({ status: "read", as: "image" });
  });

  it("for a model without vision: the note with its size, and no image part", async () => {
    const { parts, outcomes } = await prepare([await serveImage()], { vision: false });
    expect(parts.some((part) => part.type === "image")).toBe(false);
    expect(textOf(parts[0])).toContain("image `screenshot.png` (4000×3000) is attached but this model cannot see images");
    expect(outcomes[0]).toMatchObject({ status: "not_used", reason: "no_vision" });
  });
});

describe("PDFs", () => {
  it("a 3-page PDF: its text page by page, with the page count", async () => {
    const file = described(
      "FPDF",
      "spec.pdf",
      "application/pdf",
      host.serve("/files/spec.pdf", { kind: "file", body: await pdf(3), type: "application/pdf" }),
    );
    const { parts } = await prepare([file]);
    expect(textOf(parts[0])).toMatch(
      /^\[file FPDF: "spec.pdf" \(application\/pdf, [\d.]+ KB\), 3 pages; complete\]\n--- page 1 ---\nPage 1 of the spec\n\n--- page 2 ---/,
    );
  });

  it("of a long PDF the first 20 pages go into the prompt; read_attachment reads on from page 21", async () => {
    const file = described(
      "FLONG",
      "long.pdf",
      "application/pdf",
      host.serve("/files/long.pdf", { kind: "file", body: await pdf(25), type: "application/pdf" }),
    );
    const { parts, outcomes } = await prepare([file]);
    const text = textOf(parts[0]);
    expect(text).toContain('25 pages; pages 1–20 shown: read on with read_attachment({"file":"FLONG","from_page":21})');
    expect(text).toContain("--- page 20 ---");
    expect(text).not.toContain("--- page 21 ---");
    expect(outcomes[0]).toMatchObject({ status: "read", as: "pdf", cut: true });
    const tool = readAttachmentTool({ files, counter, chunkTokens: 2_000 });
    const more = String(await tool.execute({ file: "FLONG", from_page: 21 }, { signal: new AbortController().signal, runId: "r", origin }));
    expect(more).toMatch(
      /^\[file FLONG: "long.pdf" .*, from page 21, tokens 0–\d+; the end of the file\]\n--- page 21 ---\nPage 21 of the spec/,
    );
  });

  it("an encrypted PDF is a note naming the reason", async () => {
    const file = described(
      "FENC",
      "locked.pdf",
      "application/pdf",
      host.serve("/files/locked.pdf", { kind: "file", body: await encryptedPdf() }),
    );
    const { outcomes } = await prepare([file]);
    expect(outcomes[0]).toMatchObject({ status: "not_used", reason: "unreadable", detail: "the PDF is encrypted (it needs a password)" });
  });
});
