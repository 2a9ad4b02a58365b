// The downloader against a file host that behaves like the platforms' (real fetch on 127.0.0.1):
// tokens, scopes, expired links, sizes declared and real, the platform's hosts only (a second
// server counts what reaches it), redirects, timeouts.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { downloadUrl, LOGIN_PAGE_DETAIL, type UrlDownload } from "../../src/files/download.js";
import { fileHostsOf } from "../../src/files/file-hosts.js";
import { readLocalFile } from "../../src/files/local-file.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { GOOD_TOKEN, NO_SCOPE_TOKEN, startFakeFileServer, type FakeFileServer } from "../support/fake-file-server.js";

let host: FakeFileServer;
let elsewhere: FakeFileServer;
beforeEach(async () => {
  host = await startFakeFileServer();
  elsewhere = await startFakeFileServer();
});
afterEach(async () => {
  await host.close();
  await elsewhere.close();
});

const MB = 1024 * 1024;
const live = () => new AbortController().signal;
/** The platform's hosts: the fake file host only (as SLACK_API_URL's origin is in the tests), unless a test names more. */
const onlyHost = () => fileHostsOf("Slack", [], host.url);
const request = (url: string, more: Partial<UrlDownload> = {}): UrlDownload => ({
  url,
  hosts: onlyHost(),
  signal: live(),
  maxBytes: 20 * MB,
  timeoutMs: 5_000,
  ...more,
});
const withToken = (token: string) => ({ authorization: `Bearer ${token}` });

describe("private files", () => {
  it("are fetched with the bot token", async () => {
    const url = host.serve("/files/T1/F1/notes.txt", { kind: "file", body: Buffer.from("hello"), type: "text/plain", private: true });
    const got = await downloadUrl(request(url, withToken(GOOD_TOKEN)));
    expect(got).toEqual({ kind: "ok", data: Buffer.from("hello"), mime: "text/plain" });
    expect(host.requests[0]!.headers.authorization).toBe(`Bearer ${GOOD_TOKEN}`);
  });

  it("refuse a missing or a wrong token, and the failure says so", async () => {
    const url = host.serve("/files/F1", { kind: "file", body: Buffer.from("x"), private: true });
    for (const extra of [{}, withToken("xoxb-wrong")]) {
      const got = await downloadUrl(request(url, extra));
      expect(got).toEqual({ kind: "failed", reason: "failed_download", detail: "the platform refused the bot's credentials (HTTP 401)" });
    }
  });

  it("answer a login page to a token without files:read: the failure names the missing scope, the page is never the file", async () => {
    const url = host.serve("/files/F1", { kind: "file", body: Buffer.from("secret"), private: true });
    const got = await downloadUrl(request(url, withToken(NO_SCOPE_TOKEN)));
    expect(got).toEqual({ kind: "failed", reason: "missing_scope", detail: LOGIN_PAGE_DETAIL });
    expect(LOGIN_PAGE_DETAIL).toBe("the platform answered with a login page: the files:read scope is missing");
  });

  it("an HTML body labelled as something else is a login page too, unless the file is HTML", async () => {
    const page = Buffer.from("\n<!DOCTYPE html><html><body>Sign in</body></html>");
    const url = host.serve("/page", { kind: "file", body: page, type: "application/octet-stream" });
    expect(await downloadUrl(request(url))).toMatchObject({ kind: "failed", reason: "missing_scope" });
    expect(await downloadUrl(request(url, { expectsHtml: true }))).toMatchObject({ kind: "ok", data: page });
  });
});

describe("sizes", () => {
  it("a declared size over the limit is refused before any request", async () => {
    const url = host.serve("/big", { kind: "file", body: Buffer.from("x") });
    const got = await downloadUrl(request(url, { declaredSize: 25 * MB }));
    expect(got).toEqual({
      kind: "failed",
      reason: "too_big",
      detail: "the file is 25.0 MB, more than the limit of 20.0 MB (FILE_MAX_BYTES)",
    });
    expect(host.requests).toHaveLength(0);
  });

  it("a Content-Length over the limit is refused without reading the body", async () => {
    const url = host.serve("/declared", { kind: "declared", declared: 30 * MB });
    const got = await downloadUrl(request(url));
    expect(got).toMatchObject({ kind: "failed", reason: "too_big", detail: expect.stringContaining("the server declared 30.0 MB") });
  });

  it("a server that sends more than the platform declared is cut off at the limit: never more than the limit is held", async () => {
    const url = host.serve("/liar", { kind: "stream", bytes: 40 * MB });
    const got = await downloadUrl(request(url, { declaredSize: 1_024, maxBytes: 2 * MB }));
    expect(got).toMatchObject({
      kind: "failed",
      reason: "too_big",
      detail: "the server sent more than the limit of 2.0 MB (FILE_MAX_BYTES): the download was cut off there",
    });
    // The client hung up long before the 40 MB: what was sent is bounded by the limit and the sockets' buffers.
    await expect.poll(() => host.sent("/liar")).toBeLessThan(12 * MB);
  });

  it("a body within the limit arrives whole, with or without a Content-Length", async () => {
    const streamed = host.serve("/stream", { kind: "stream", bytes: 3 * MB + 17 });
    const fixed = host.serve("/fixed", { kind: "file", body: Buffer.alloc(3 * MB + 17, 0x62) });
    expect(((await downloadUrl(request(streamed))) as { data: Buffer }).data.length).toBe(3 * MB + 17);
    expect(((await downloadUrl(request(fixed))) as { data: Buffer }).data.equals(Buffer.alloc(3 * MB + 17, 0x62))).toBe(true);
  });
});

describe("links and redirects", () => {
  it("an expired link is named as such", async () => {
    const url = host.serve("/attachments/1/2/a.png", { kind: "file", body: Buffer.from("x"), expiresAt: Date.now() - 1 });
    expect(await downloadUrl(request(url))).toEqual({
      kind: "failed",
      reason: "expired_link",
      detail: "the link has expired or the file is gone (HTTP 404)",
    });
  });

  it("a link on another host is refused before any request, and the failure names the host", async () => {
    const url = elsewhere.serve("/files/F1", { kind: "file", body: Buffer.from("internal"), type: "text/plain" });
    const got = await downloadUrl(request(url, withToken(GOOD_TOKEN)));
    expect(got).toEqual({
      kind: "failed",
      reason: "off_platform_link",
      detail: `the link points at ${elsewhere.url}, which is not Slack's file host: the bot fetches files only from Slack, so nothing was requested there`,
    });
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("a link at a private address is refused with no request, whatever name the address goes by", async () => {
    const port = new URL(elsewhere.url).port;
    elsewhere.serve("/latest/meta-data", { kind: "file", body: Buffer.from("role credentials"), type: "text/plain" });
    for (const url of [
      `http://localhost:${port}/latest/meta-data`,
      `http://127.0.0.1:${port}/latest/meta-data`,
      `${host.url.replace("http:", "https:")}/x`,
    ]) {
      const got = await downloadUrl(request(url));
      expect(got).toMatchObject({ kind: "failed", reason: "off_platform_link", detail: expect.stringContaining(new URL(url).origin) });
    }
    expect(elsewhere.requests).toHaveLength(0);
    expect(host.requests).toHaveLength(0);
  });

  it("a redirect from the platform's host to another host is refused: no request goes there, the token stays", async () => {
    const target = elsewhere.serve("/cdn/F1", { kind: "file", body: Buffer.from("moved") });
    const url = host.serve("/files/F1", { kind: "redirect", to: target, private: true });
    const got = await downloadUrl(request(url, withToken(GOOD_TOKEN)));
    expect(got).toMatchObject({
      kind: "failed",
      reason: "off_platform_link",
      detail: expect.stringContaining(`the download was redirected to ${elsewhere.url}, which is not Slack's file host`),
    });
    expect(host.requests.map((seen) => seen.headers.authorization)).toEqual([`Bearer ${GOOD_TOKEN}`]);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("a redirect among the platform's hosts is followed, with the token on every hop", async () => {
    const there = elsewhere.serve("/cdn/F1", { kind: "file", body: Buffer.from("moved"), type: "text/plain", private: true });
    const inside = host.serve("/files/moved", { kind: "redirect", to: there, private: true });
    const url = host.serve("/files/F1", { kind: "redirect", to: inside, private: true });
    const both = fileHostsOf("Slack", [elsewhere.url], host.url);
    expect(await downloadUrl(request(url, { ...withToken(GOOD_TOKEN), hosts: both }))).toMatchObject({
      kind: "ok",
      data: Buffer.from("moved"),
    });
    expect([...host.requests, ...elsewhere.requests].map((seen) => [seen.path, seen.headers.authorization])).toEqual([
      ["/files/F1", `Bearer ${GOOD_TOKEN}`],
      ["/files/moved", `Bearer ${GOOD_TOKEN}`],
      ["/cdn/F1", `Bearer ${GOOD_TOKEN}`],
    ]);
  });

  it("a redirect to a non-http scheme or a loop of redirects is refused", async () => {
    const file = host.serve("/to-file", { kind: "redirect", to: "file:///etc/passwd" });
    expect(await downloadUrl(request(file))).toEqual({
      kind: "failed",
      reason: "off_platform_link",
      detail: "the link is not http(s) (file:)",
    });
    const loop = host.serve("/loop", { kind: "redirect", to: "/loop" });
    expect(await downloadUrl(request(loop))).toEqual({ kind: "failed", reason: "failed_download", detail: "more than 5 redirects" });
  });
});

describe("time", () => {
  it("a host that never answers times out with FILE_DOWNLOAD_TIMEOUT_MS named", async () => {
    const url = host.serve("/hang", { kind: "hang" });
    expect(await downloadUrl(request(url, { timeoutMs: 200 }))).toEqual({
      kind: "failed",
      reason: "failed_download",
      detail: "no complete answer within 200 ms (FILE_DOWNLOAD_TIMEOUT_MS)",
    });
  });

  it("the run's deadline (or a Stop) ends a download in flight", async () => {
    const url = host.serve("/hang", { kind: "hang" });
    const run = new AbortController();
    const pending = downloadUrl(request(url, { signal: run.signal }));
    await expect.poll(() => host.hits("/hang")).toBe(1);
    run.abort(new Error("run deadline"));
    expect(await pending).toMatchObject({
      kind: "failed",
      reason: "failed_download",
      detail: expect.stringContaining("the run's time ran out"),
    });
  });

  it("a host that is not there is a failed download, not a throw", async () => {
    const gone = host.serve("/x", { kind: "file", body: Buffer.from("x") });
    const itsHosts = onlyHost();
    await host.close();
    host = await startFakeFileServer();
    expect(await downloadUrl(request(gone, { hosts: itsHosts }))).toMatchObject({
      kind: "failed",
      reason: "failed_download",
      detail: expect.stringContaining("ECONNREFUSED"),
    });
  });
});

describe("a local file (the console's /attach)", () => {
  it("is read within the same limits: whole, refused when too big, named when missing", async () => {
    const folder = await temporaryFolder();
    try {
      const path = join(folder.path, "notes.txt");
      await writeFile(path, "local notes");
      const limits = { signal: live(), maxBytes: 1_024, timeoutMs: 5_000 };
      expect(await readLocalFile(path, limits)).toEqual({ kind: "ok", data: Buffer.from("local notes") });
      await writeFile(path, Buffer.alloc(2_048));
      expect(await readLocalFile(path, limits)).toMatchObject({ kind: "failed", reason: "too_big" });
      expect(await readLocalFile(join(folder.path, "nope.txt"), limits)).toMatchObject({
        kind: "failed",
        detail: expect.stringContaining("ENOENT"),
      });
      expect(await readLocalFile(folder.path, limits)).toMatchObject({ kind: "failed", detail: expect.stringContaining("is not a file") });
    } finally {
      await folder.remove();
    }
  });
});
