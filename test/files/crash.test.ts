// kill -9 a bot process in the middle of a run that brought a PDF, start another on the same
// store, and count the downloads: a file already extracted is never fetched again, and a file
// whose reading the process did not survive is neither fetched nor read again.
import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FileDescriptor } from "../../src/files/file-ref.js";
import { startFakeFileServer, type FakeFileServer } from "../support/fake-file-server.js";
import { startFakeOpenAI, textReply, type FakeOpenAI, type RecordedRequest } from "../support/fake-openai-server.js";
import { isRunning } from "../support/bot-child.js";
import { described, pdf } from "../support/sample-files.js";
import { flateBombPdf } from "../support/hostile-files.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { until } from "../support/until.js";
import { readerPids } from "../support/process-tree.js";
import { NOT_READ_AGAIN_DETAIL } from "../../src/files/file-intake.js";

interface Child {
  readonly process: ChildProcess;
  readonly lines: Array<Record<string, unknown>>;
  output(): string;
  exited: Promise<unknown>;
}

let host: FakeFileServer;
let openai: FakeOpenAI;
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
const children: Child[] = [];
beforeEach(async () => {
  host = await startFakeFileServer();
  openai = await startFakeOpenAI();
  folder = await temporaryFolder();
});
afterEach(async () => {
  for (const child of children.splice(0))
    if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill("SIGKILL");
  await openai.close();
  await host.close();
  await folder.remove();
});

function start(storeUrl: string, files: readonly FileDescriptor[], mode: "submit" | "resume", env: Record<string, string> = {}): Child {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "test/support/files-process.ts", storeUrl, openai.baseUrl, JSON.stringify(files), mode],
    {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let text = "";
  const lines: Array<Record<string, unknown>> = [];
  child.stdout.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
    const complete = text.split("\n");
    text = complete.pop() ?? "";
    for (const line of complete) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString("utf8")));
  const started: Child = {
    process: child,
    lines,
    output: () => `${JSON.stringify(lines)}\n${errors}`,
    exited: new Promise((resolve) => child.on("exit", resolve)),
  };
  children.push(started);
  return started;
}

async function kill9(child: Child): Promise<void> {
  child.process.kill("SIGKILL");
  await child.exited;
}

/** A three-page spec.pdf, private on the file host. */
const servedSpec = async () =>
  described(
    "FSPEC",
    "spec.pdf",
    "application/pdf",
    host.serve("/files/spec.pdf", { kind: "file", body: await pdf(3), type: "application/pdf", private: true }),
  );

/** `waiting`, whose failure shows what the child wrote. */
const withOutputOf = <T>(child: Child, waiting: Promise<T>): Promise<T> =>
  waiting.catch((error: Error) => {
    throw new Error(`${error.message}\n${child.output()}`);
  });

const userText = (request: RecordedRequest) =>
  JSON.stringify(request.body.messages.filter((message: { role: string }) => message.role === "user"));
const answerOf = (child: Child) => child.lines.find((line) => "answer" in line)?.answer;
const answered = (child: Child) =>
  withOutputOf(
    child,
    until(() => answerOf(child) !== undefined, "the answer after the restart", 30_000),
  );

describe("a run with files survives kill -9", () => {
  it("killed while the second file downloads: the restart takes the PDF from the store and fetches only the other", async () => {
    const storeUrl = `sqlite://${folder.path}/bot.sqlite`;
    const spec = await servedSpec();
    const notes = described("FNOTES", "notes.txt", "text/plain", host.serve("/files/notes.txt", { kind: "hang" }));
    openai.enqueue(textReply("The spec has 3 pages; the notes say ship it."));

    const first = start(storeUrl, [spec, notes], "submit");
    await withOutputOf(
      first,
      until(() => first.lines.some((line) => line.stored === "file:console:crash:FSPEC"), "the PDF to be stored", 30_000),
    );
    await until(() => host.hits("/files/notes.txt") === 1, "the second download to start", 10_000);
    await kill9(first);
    expect(openai.requests).toHaveLength(0);

    host.serve("/files/notes.txt", { kind: "file", body: Buffer.from("ship it on Tuesday"), type: "text/plain" });
    const second = start(storeUrl, [spec, notes], "resume");
    await answered(second);
    expect(answerOf(second)).toBe("The spec has 3 pages; the notes say ship it.");
    expect(host.hits("/files/spec.pdf")).toBe(1);
    expect(host.hits("/files/notes.txt")).toBe(2);
    const event = second.lines.find((line) => "event" in line)?.event as { files: Array<{ file: { id: string }; reused: boolean }> };
    expect(event.files.map((file) => [file.file.id, file.reused])).toEqual([
      ["FSPEC", true],
      ["FNOTES", false],
    ]);
    expect(userText(openai.requests[0]!)).toContain("Page 3 of the spec");
    expect(userText(openai.requests[0]!)).toContain("ship it on Tuesday");
  }, 90_000);

  it("killed during the first model call: the restart goes on from the checkpoint, with no download at all", async () => {
    const storeUrl = `sqlite://${folder.path}/bot.sqlite`;
    const spec = await servedSpec();
    openai.enqueue({ hang: true }, textReply("Three pages."));

    const first = start(storeUrl, [spec], "submit");
    await withOutputOf(first, openai.waitForRequests(1, 30_000));
    await kill9(first);

    const second = start(storeUrl, [spec], "resume");
    await answered(second);
    expect(answerOf(second)).toBe("Three pages.");
    expect(host.hits("/files/spec.pdf")).toBe(1);
    // The resumed request is the one the killed process sent: the same question with the PDF's text.
    expect(openai.requests[1]!.body.messages).toEqual(openai.requests[0]!.body.messages);
    expect(userText(openai.requests[1]!)).toContain("Page 2 of the spec");
  }, 90_000);

  it("killed while a bomb is read: the reader goes with it, and the restart answers once without fetching or reading the file again", async () => {
    const storeUrl = `sqlite://${folder.path}/bot.sqlite`;
    const bomb = flateBombPdf(1_024, "one stream");
    const report = described(
      "FBOMB",
      "report.pdf",
      "application/pdf",
      host.serve("/files/report.pdf", { kind: "file", body: bomb, type: "application/pdf", private: true }),
    );
    openai.enqueue(textReply("I could not read report.pdf."));
    // A budget past the bomb: the pre-scan lets it through, and pdf.js works on it until the reader's ceiling.
    const lenient = { FILE_MAX_EXPANDED_BYTES: String(4_096 * 1024 * 1024), FILE_READER_MEMORY_MB: "256", FILE_READ_TIMEOUT_MS: "120000" };

    const first = start(storeUrl, [report], "submit", lenient);
    await withOutputOf(
      first,
      until(() => first.lines.some((line) => line.reading === "file-reading:console:crash:FBOMB"), "the read to begin", 30_000),
    );
    await until(() => readerPids(first.process.pid!).length === 1, "the reader process", 30_000);
    const [reader] = readerPids(first.process.pid!);
    await kill9(first);
    expect(first.lines.some((line) => "stored" in line)).toBe(false);
    // The orphaned reader leaves as soon as it notices its parent is gone, not after the whole file.
    await until(() => !isRunning(reader!), "the orphaned reader to leave", 30_000);

    const second = start(storeUrl, [report], "resume", lenient);
    await answered(second);
    expect(second.lines.filter((line) => "answer" in line)).toEqual([{ answer: "I could not read report.pdf." }]);
    expect(host.hits("/files/report.pdf")).toBe(1);
    expect(second.lines.some((line) => "reading" in line)).toBe(false);
    const event = second.lines.find((line) => "event" in line)?.event as { files: Array<Record<string, unknown>> };
    expect(event.files).toMatchObject([{ status: "not_used", reason: "unreadable", detail: NOT_READ_AGAIN_DETAIL }]);
    expect(userText(openai.requests[0]!)).toContain(NOT_READ_AGAIN_DETAIL);
  }, 120_000);
});
