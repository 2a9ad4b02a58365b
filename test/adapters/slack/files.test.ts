// Files on Slack, end to end: the real Bolt app takes signed events with `files[]`, the real
// service reads them (downloaded from the fake Slack's private URLs with the bot token, and from
// nowhere else: a second server counts what reaches it) and the scripted model sees them, in
// their own conversation only (a DM's file is no read source for a channel's answer);
// answers carry files through Slack's external upload into the thread.
import { describe, expect, it } from "vitest";
import { call, ScriptedModel, say } from "../../support/model-scripted.js";
import type { ChatMessage } from "../../../src/contracts/types.js";
import { slackFilesOf } from "../../../src/adapters/slack/slack-files.js";
import { BOT_USER_ID } from "../../support/fake-slack.js";
import { SLACK_BOT_TOKEN } from "../../support/fake-slack-files.js";
import { startFakeFileServer, type FakeFileServer } from "../../support/fake-file-server.js";
import { directMessageEvent, mentionEvent, postEvent } from "../../support/fake-slack-requests.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";
import { usePerTest } from "../../support/per-test.js";

let harness: SlackHarness | undefined;
let other: FakeFileServer | undefined;
const { closeAfter } = usePerTest();

const CSV = Buffer.from("region,total\nnorth,12\nsouth,30\n");
const sent = (model: ScriptedModel, index = 0) => JSON.stringify(model.requests[index]?.messages ?? []);
const question = (messages: readonly ChatMessage[]) => [...messages].reverse().find((message) => message.role === "user");

async function answered(h: SlackHarness, text: string) {
  return h.fake.waitForShown((shown) => shown.includes(text));
}

describe("files people attach on Slack", () => {
  it("a mention with a CSV: the model gets its text; the token goes to Slack's file URL only, as Bearer", async () => {
    const model = new ScriptedModel([say("The south sold 30.")]);
    harness = closeAfter(await startSlackHarness({ model }));
    const file = harness.fake.addFile({ name: "sales.csv", mimetype: "text/csv", data: CSV });
    const ts = "1700001000.000100";
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> who sold more?`, ts, files: [file] }));
    await answered(harness, "south sold 30");

    const user = question(model.requests[0]!.messages)!;
    expect(Array.isArray(user.content)).toBe(true);
    expect(sent(model)).toContain("south,30");
    expect(sent(model)).toContain("who sold more?");
    const requests = harness.fake.fileRequests;
    expect(requests.map((request) => request.path)).toEqual([new URL(file.url_private_download).pathname]);
    expect(requests[0]!.headers.authorization).toBe(`Bearer ${SLACK_BOT_TOKEN}`);
  });

  it("a DM of a file alone (file_share, no text) is a question about the file", async () => {
    const model = new ScriptedModel([say("It lists two regions.")]);
    harness = closeAfter(await startSlackHarness({ model }));
    const file = harness.fake.addFile({ name: "sales.csv", mimetype: "text/csv", data: CSV });
    await postEvent(harness.eventsUrl, directMessageEvent({ text: "", ts: "1700001100.000100", subtype: "file_share", files: [file] }));
    await answered(harness, "two regions");
    expect(sent(model)).toContain("north,12");
    expect(harness.fake.shown((text) => text.startsWith("Ask me something")).length > 0).toBe(false);
  });

  it("a file shared in a DM can't be read from a channel: no answer there can quote it (nothing to hold)", async () => {
    const secret = "The acquisition of Initech closes on March 3.";
    let memoId = "";
    const model = new ScriptedModel([say("Noted."), () => call("read_attachment", { file: memoId }), say("I can't read that here.")]);
    harness = closeAfter(await startSlackHarness({ model }));
    const memo = harness.fake.addFile({ name: "memo.txt", mimetype: "text/plain", data: Buffer.from(secret) });
    memoId = memo.id;
    await postEvent(harness.eventsUrl, directMessageEvent({ text: "keep this", ts: "1700001050.000100", files: [memo] }));
    await answered(harness, "Noted.");
    expect(sent(model, 0)).toContain("Initech");

    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> what does ${memo.id} say?`, ts: "1700001060.000100" }));
    await answered(harness, "can't read that here");
    expect(sent(model, 2)).toContain(`there is no attached file \\"${memo.id}\\" in this conversation`);
    expect(sent(model, 1) + sent(model, 2)).not.toContain("Initech");
  });

  it("without files:read Slack answers its sign-in page: the model is told the scope is missing, not shown the page", async () => {
    const model = new ScriptedModel([say("I can't read it.")]);
    harness = closeAfter(await startSlackHarness({ model }));
    harness.fake.withoutScope("files:read");
    const file = harness.fake.addFile({ name: "sales.csv", mimetype: "text/csv", data: CSV });
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> sum it`, ts: "1700001200.000100", files: [file] }));
    await answered(harness, "can't read it");
    expect(sent(model)).toContain("files:read scope is missing");
    expect(sent(model)).not.toContain("Sign in");
    // The trace names the file and why it was not used.
    const trace = harness.fake.threadMessages("C0GENERAL", "1700001200.000100").flatMap((message) => message.chunks);
    expect(trace).toContainEqual(
      expect.objectContaining({
        type: "task_update",
        title: "File sales.csv",
        status: "error",
        details: expect.stringContaining("files:read"),
      }),
    );
  });

  it("a file shared over Slack Connect comes as its id alone: files.info describes it, then it is read like any other", async () => {
    const model = new ScriptedModel([say("The north sold 12.")]);
    harness = closeAfter(await startSlackHarness({ model }));
    const file = harness.fake.addFile({ name: "sales.csv", mimetype: "text/csv", data: CSV });
    const stub = harness.fake.connectStub(file);
    expect(slackFilesOf([stub])).toEqual([
      { id: file.id, name: file.id, mime: "application/octet-stream", source: { check: "files.info" } },
    ]);
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> and the north?`, ts: "1700001250.000100", files: [stub] }));
    await answered(harness, "north sold 12");
    expect(harness.fake.callsTo("files.info").map((c) => c.args.file)).toEqual([file.id]);
    expect(sent(model)).toContain("north,12");
    expect(sent(model)).toContain("sales.csv");
    expect(harness.fake.fileRequests.map((request) => request.path)).toEqual([new URL(file.url_private_download).pathname]);
  });

  it("a Slack Connect file without files:read: the model is told the scope is missing, nothing is downloaded", async () => {
    const model = new ScriptedModel([say("I can't read it.")]);
    harness = closeAfter(await startSlackHarness({ model }));
    harness.fake.withoutScope("files:read");
    const file = harness.fake.addFile({ name: "sales.csv", mimetype: "text/csv", data: CSV });
    const stub = harness.fake.connectStub(file);
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> sum it`, ts: "1700001260.000100", files: [stub] }));
    await answered(harness, "can't read it");
    expect(sent(model)).toContain("lacks the files:read scope");
    expect(harness.fake.fileRequests).toEqual([]);
  });

  it("a file whose link points off Slack (an internal address) is refused before any request: the trace says why, the run goes on", async () => {
    other = closeAfter(await startFakeFileServer());
    const internal = other.serve("/latest/meta-data/iam", { kind: "file", body: Buffer.from("role-credentials-42"), type: "text/plain" });
    const model = new ScriptedModel([say("Answered without it.")]);
    harness = closeAfter(await startSlackHarness({ model }));
    const file = {
      ...harness.fake.addFile({ name: "creds.txt", mimetype: "text/plain", data: CSV }),
      url_private: internal,
      url_private_download: internal,
    };
    const ts = "1700001300.000100";
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> read it`, ts, files: [file] }));
    await answered(harness, "Answered without it.");

    expect(other.requests).toHaveLength(0);
    expect(harness.fake.fileRequests).toHaveLength(0);
    expect(sent(model)).not.toContain("role-credentials-42");
    expect(sent(model)).toContain(`the link points at ${other.url}, which is not Slack's file host`);
    const trace = harness.fake.threadMessages("C0GENERAL", ts).flatMap((message) => message.chunks);
    expect(trace).toContainEqual(
      expect.objectContaining({
        type: "task_update",
        title: "File creds.txt",
        status: "error",
        details: `the link points at ${other.url}, which is not Slack's file host: the bot fetches files only from Slack, so nothing was requested there`,
      }),
    );
  });

  it("a redirect from Slack's file host to another host is refused: no request goes there, the token stays with Slack", async () => {
    other = closeAfter(await startFakeFileServer());
    const elsewhere = other.serve("/copy/sales.csv", { kind: "file", body: CSV, type: "text/csv" });
    const model = new ScriptedModel([say("Could not read it.")]);
    harness = closeAfter(await startSlackHarness({ model }));
    const file = harness.fake.addFile({ name: "sales.csv", mimetype: "text/csv", data: CSV, redirectTo: elsewhere });
    const ts = "1700001350.000100";
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> read`, ts, files: [file] }));
    await answered(harness, "Could not read it.");
    expect(harness.fake.fileRequests.map((request) => request.headers.authorization)).toEqual([`Bearer ${SLACK_BOT_TOKEN}`]);
    expect(other.requests).toHaveLength(0);
    expect(sent(model)).not.toContain("south,30");
    const trace = harness.fake.threadMessages("C0GENERAL", ts).flatMap((message) => message.chunks);
    expect(trace).toContainEqual(
      expect.objectContaining({
        title: "File sales.csv",
        status: "error",
        details: expect.stringContaining(`the download was redirected to ${other.url}, which is not Slack's file host`),
      }),
    );
  });

  it("a file bigger than FILE_MAX_BYTES by the event's size is refused before any download", async () => {
    const model = new ScriptedModel([say("Too big.")]);
    harness = closeAfter(await startSlackHarness({ model }));
    const file = harness.fake.addFile({ name: "huge.log", mimetype: "text/plain", data: CSV, size: 25 * 1024 * 1024 });
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> look`, ts: "1700001400.000100", files: [file] }));
    await answered(harness, "Too big.");
    expect(harness.fake.fileRequests).toHaveLength(0);
    expect(sent(model)).toContain("FILE_MAX_BYTES");
  });

  it("a mention in a thread reply brings the thread root's files", async () => {
    const model = new ScriptedModel([say("The root has the sales.")]);
    harness = closeAfter(await startSlackHarness({ model }));
    const file = harness.fake.addFile({ name: "sales.csv", mimetype: "text/csv", data: CSV });
    const root = "1700001500.000100";
    harness.fake.addMessage({ ts: root, channel: "C0GENERAL", user: "U0BOB", text: "numbers for Q3", files: [file] });
    const reply = mentionEvent({ text: `<@${BOT_USER_ID}> what's in the file above?`, ts: "1700001501.000100", thread_ts: root });
    await postEvent(harness.eventsUrl, reply);
    await answered(harness, "root has the sales");
    expect(sent(model)).toContain("south,30");
  });
});

describe("Slack's file objects", () => {
  it("are read whole or left out: a deleted file is skipped, a file hidden by the plan has no link and says why", () => {
    const base = { id: "F1", name: "a.log", mimetype: "text/plain", size: 3, url_private: "https://files.slack.com/files-pri/T-F1/a.log" };
    expect(
      slackFilesOf([base, { ...base, id: "F2", mode: "tombstone" }, { id: "F3", name: "old.txt", mode: "hidden_by_limit" }, 42]),
    ).toEqual([
      { id: "F1", name: "a.log", mime: "text/plain", size: 3, source: { url: base.url_private } },
      { id: "F3", name: "old.txt", mime: "application/octet-stream", source: { hidden: "plan" } },
    ]);
    expect(slackFilesOf("not a list")).toEqual([]);
  });
});

describe("files the bot answers with on Slack", () => {
  it("attach_file: the answer in the thread, then the file through getUploadURLExternal → upload → completeUploadExternal", async () => {
    const model = new ScriptedModel([call("attach_file", { name: "totals.csv", content: "region,total\nsouth,30\n" }), say("Here it is.")]);
    harness = closeAfter(await startSlackHarness({ model }));
    const ts = "1700001600.000100";
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> as CSV please`, ts }));
    await answered(harness, "Here it is.");
    const completed = await harness.fake.waitForCall("files.completeUploadExternal");
    expect(completed.error).toBeUndefined();
    expect(completed.args).toMatchObject({ channel_id: "C0GENERAL", thread_ts: ts });
    const asked = harness.fake.callsTo("files.getUploadURLExternal");
    expect(asked.map((c) => c.args)).toMatchObject([{ filename: "totals.csv", length: "22" }]);
    expect(harness.fake.uploaded.map((file) => [file.filename, file.data.toString(), file.threadTs])).toEqual([
      ["totals.csv", "region,total\nsouth,30\n", ts],
    ]);
    expect(harness.fake.threadMessages("C0GENERAL", ts).some((message) => message.files?.length === 1)).toBe(true);
  });

  it("an upload Slack refuses (no files:write) is said in the thread after the answer", async () => {
    const model = new ScriptedModel([call("attach_file", { name: "totals.csv", content: "a,b\n" }), say("Attached.")]);
    harness = closeAfter(await startSlackHarness({ model }));
    harness.fake.withoutScope("files:write");
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> as CSV`, ts: "1700001700.000100" }));
    await answered(harness, "Attached.");
    await answered(harness, "Slack refused the upload");
    expect(harness.fake.uploaded).toHaveLength(0);
  });
});
