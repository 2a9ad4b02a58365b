// Files on Discord, end to end: the real discord.js client gets messages and /ask with
// attachments from the fake gateway, the real service downloads them from the fake CDN (signed,
// expiring links; no token; nowhere else: a second server counts what reaches it) and the
// scripted model sees them; answers carry files as multipart messages, within the bot's upload limit.
import { REST } from "discord.js";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/logger.js";
import { answerFilesOf } from "../../../src/adapters/core/answer-files.js";
import { createDiscordFiles } from "../../../src/adapters/discord/discord-files.js";
import { discordFormat } from "../../../src/adapters/discord/messages.js";
import { call, say } from "../../support/model-scripted.js";
import { startFakeFileServer, type FakeFileServer } from "../../support/fake-file-server.js";
import { discordAsked } from "../../support/discord-origins.js";
import { startDiscordHarness, type DiscordHarness } from "../../support/discord-harness.js";
import { until } from "../../support/until.js";
import { usePerTest } from "../../support/per-test.js";

let harness: DiscordHarness | undefined;
let other: FakeFileServer | undefined;
const { closeAfter } = usePerTest();

const CSV = Buffer.from("region,total\nnorth,12\nsouth,30\n");
const sent = (h: DiscordHarness, index = 0) => JSON.stringify(h.model.requests[index]?.messages ?? []);
const answered = (h: DiscordHarness, text: string) =>
  until(() => [...h.fake.messages.values()].some((message) => message.content.includes(text)), `an answer with "${text}"`, 10_000);

describe("files people attach on Discord", () => {
  it("a mention with a CSV: the model gets its text, fetched from the CDN without any token", async () => {
    harness = closeAfter(await startDiscordHarness({ script: [say("The south sold 30.")] }));
    const { fake, alice } = harness;
    const file = fake.cdn.attachment(fake.general.id, { name: "sales.csv", contentType: "text/csv", data: CSV });
    fake.userMessage(alice, "who sold more?", { mentionBot: true, attachments: [file] });
    await answered(harness, "south sold 30");
    expect(sent(harness)).toContain("south,30");
    expect(sent(harness)).toContain("who sold more?");
    expect(fake.cdn.requests).toHaveLength(1);
    expect(fake.cdn.requests[0]!.headers.authorization).toBeUndefined();
  });

  it("a message of a file alone is a question about it", async () => {
    harness = closeAfter(await startDiscordHarness({ script: [say("Two regions.")] }));
    const { fake, alice } = harness;
    const file = fake.cdn.attachment(fake.general.id, { name: "sales.csv", contentType: "text/csv", data: CSV });
    fake.userMessage(alice, "", { mentionBot: true, attachments: [file] });
    await answered(harness, "Two regions.");
    expect(sent(harness)).toContain("north,12");
  });

  it("an expired link is renewed once by reading the message again", async () => {
    harness = closeAfter(await startDiscordHarness({ script: [say("Read it after all.")] }));
    const { fake, alice } = harness;
    const file = fake.cdn.attachment(fake.general.id, { name: "sales.csv", contentType: "text/csv", data: CSV, expired: true });
    const message = fake.userMessage(alice, "sum it", { mentionBot: true, attachments: [file] });
    await answered(harness, "Read it after all.");
    expect(fake.cdn.requests.map((request) => request.status)).toEqual([404, 200]);
    expect(fake.callsTo("GET", new RegExp(`^/channels/${fake.general.id}/messages/${message.id}$`))).toHaveLength(1);
    expect(sent(harness)).toContain("south,30");
  });

  it("/ask takes an optional file", async () => {
    harness = closeAfter(await startDiscordHarness({ script: [say("Got the file.")] }));
    const { fake, alice } = harness;
    const file = fake.cdn.attachment(fake.general.id, { name: "sales.csv", contentType: "text/csv", data: CSV });
    fake.slashCommand("ask", alice, { values: { question: "what is in it?" }, attachments: { file } });
    await answered(harness, "Got the file.");
    expect(sent(harness)).toContain("south,30");
    expect(sent(harness)).toContain("what is in it?");
  });

  it("/ask's expired file is renewed once through attachments/refresh-urls", async () => {
    harness = closeAfter(await startDiscordHarness({ script: [say("Renewed and read.")] }));
    const { fake, alice } = harness;
    const file = fake.cdn.attachment(fake.general.id, { name: "sales.csv", contentType: "text/csv", data: CSV, expired: true });
    fake.slashCommand("ask", alice, { values: { question: "and now?" }, attachments: { file } });
    await answered(harness, "Renewed and read.");
    expect(fake.cdn.requests.map((request) => request.status)).toEqual([404, 200]);
    expect(fake.callsTo("POST", /^\/attachments\/refresh-urls$/).map((request) => request.body)).toEqual([{ attachment_urls: [file.url] }]);
    expect(sent(harness)).toContain("south,30");
  });
});

describe("links off Discord's CDN", () => {
  it("an attachment whose link points elsewhere (an internal address) is refused before any request; the run goes on", async () => {
    other = closeAfter(await startFakeFileServer());
    const internal = other.serve("/latest/meta-data/iam", { kind: "file", body: Buffer.from("role-credentials-42"), type: "text/plain" });
    harness = closeAfter(await startDiscordHarness({ script: [say("Answered without it.")] }));
    const { fake, alice } = harness;
    const file = { ...fake.cdn.attachment(fake.general.id, { name: "creds.txt", contentType: "text/plain", data: CSV }), url: internal };
    fake.userMessage(alice, "read it", { mentionBot: true, attachments: [file] });
    await answered(harness, "Answered without it.");
    expect(other.requests).toHaveLength(0);
    expect(fake.cdn.requests).toHaveLength(0);
    expect(sent(harness)).not.toContain("role-credentials-42");
    expect(sent(harness)).toContain(`the link points at ${other.url}, which is not Discord's file host`);
  });

  it("a redirect from the CDN to another host is refused with no request there", async () => {
    const cdn = closeAfter(await startFakeFileServer());
    other = closeAfter(await startFakeFileServer());
    try {
      const elsewhere = other.serve("/copy/sales.csv", { kind: "file", body: CSV, type: "text/csv" });
      const url = cdn.serve("/attachments/1/2/sales.csv", { kind: "redirect", to: elsewhere });
      const files = createDiscordFiles({ rest: new REST(), logger: silentLogger, apiUrl: cdn.url });
      const file = { id: "2", name: "sales.csv", mime: "text/csv", size: CSV.length, source: { url } };
      const ref = files.refFor(file, discordAsked({ id: "7", name: "alice" }, { channel: "1" }));
      const got = await ref.download({ signal: new AbortController().signal, maxBytes: 1024 * 1024, timeoutMs: 5_000 });
      expect(got).toEqual({
        kind: "failed",
        reason: "off_platform_link",
        detail: `the download was redirected to ${other.url}, which is not Discord's file host: the bot fetches files only from Discord, so nothing was requested there`,
      });
      expect(cdn.hits("/attachments/1/2/sales.csv")).toBe(1);
      expect(other.requests).toHaveLength(0);
    } finally {
      await cdn.close();
    }
  });
});

describe("files the bot answers with on Discord", () => {
  it("attach_file: the file goes up as a multipart message below the answer", async () => {
    harness = closeAfter(
      await startDiscordHarness({
        script: [call("attach_file", { name: "totals.csv", content: "region,total\nsouth,30\n" }), say("Here it is.")],
      }),
    );
    const { fake, alice } = harness;
    fake.userMessage(alice, "as CSV please", { mentionBot: true });
    await answered(harness, "Here it is.");
    await until(() => fake.cdn.uploads.length === 1, "the upload");
    expect(fake.cdn.uploads.map((file) => [file.name, file.data.toString()])).toEqual([["totals.csv", "region,total\nsouth,30\n"]]);
    const withFile = [...fake.messages.values()].find((message) => message.attachments.length === 1)!;
    expect(withFile.channel_id).toBe(fake.general.id);
    expect(withFile.attachments[0]!.filename).toBe("totals.csv");
  });

  it("at Discord's own limit for bots (10 MiB), an 11 MiB answer file is named in the answer, never loaded or uploaded", async () => {
    // The same path as the test below with the surface's default limit; an 11 MiB file written by the scripted
    // model would spend half a minute in token counting, so the stored file stands for it.
    const files = createDiscordFiles({ rest: new REST(), logger: silentLogger });
    expect(files.uploadLimitBytes).toBe(10 * 1024 * 1024);
    let loads = 0;
    const source = { load: async () => void loads++, limitBytes: files.uploadLimitBytes, platform: "Discord" };
    const big = { id: "a-1", name: "full.log", mime: "text/plain", size: 11 * 1024 * 1024 };
    const shown = await answerFilesOf([big], source, discordFormat);
    expect(shown).toEqual({
      files: [],
      notes: ["The file `full.log` (11.0 MB) is over Discord's upload limit of 10.0 MB, so it is not attached."],
    });
    expect(loads).toBe(0);
    // At the limit exactly it would go.
    expect((await answerFilesOf([{ ...big, size: 10 * 1024 * 1024 }], source, discordFormat)).notes).toEqual([
      "The file `full.log` is no longer stored, so it is not attached.",
    ]);
  });

  it("a file over the bot's upload limit is refused before any request, and the answer says so", async () => {
    // The limit lowered as for a 10 MiB one: an 11 MiB file through the scripted model costs seconds of counting.
    const limit = 64 * 1024;
    const big = "log line\n".repeat((limit * 1.1) / 9);
    harness = closeAfter(
      await startDiscordHarness({
        script: [call("attach_file", { name: "big.log", content: big }), say("Attached.")],
        adapter: { uploadLimitBytes: limit },
      }),
    );
    const { fake, alice } = harness;
    fake.userMessage(alice, "the whole log", { mentionBot: true });
    await answered(harness, "over Discord's upload limit");
    expect(fake.cdn.uploads).toHaveLength(0);
    expect(fake.calls.filter((request) => request.status === 413)).toHaveLength(0);
    const answer = [...fake.messages.values()].find((message) => message.content.includes("Attached."))!;
    expect(answer.content).toContain("`big.log`");
  });
});
