// The fake Discord's files, as Discord handles them: attachments served from a CDN path on the
// fake's origin under signed, expiring links (`?ex=<hex seconds>&is=…&hm=…`; past `ex` the
// CDN answers 404 "This content is no longer available."), links signed again whenever the
// message is read (GET a channel message), and the bot's uploads: multipart requests
// (`payload_json` and `files[n]`, as @discordjs/rest sends them) whose every file is at most the
// bot's upload limit, else 413 Request entity too large (40005) and nothing is posted; each
// `attachments[]` entry of the payload must name a file part. Every CDN request is recorded.
import { randomBytes } from "node:crypto";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { APIAttachment } from "discord.js";
import { nextSnowflake } from "./fake-discord-payloads.js";

/** What a bot may upload per file (Discord's attachment_size_limit for a server without boosts). */
export const FAKE_UPLOAD_LIMIT = 10 * 1024 * 1024;
/** How long a signed link lives on Discord (about a day). */
const LINK_LIFETIME_MS = 24 * 60 * 60_000;

interface StoredAttachment {
  readonly id: string;
  readonly channelId: string;
  readonly name: string;
  readonly contentType: string;
  readonly data: Buffer;
}

export interface CdnRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly status: number;
}

export type ParsedBody =
  | { readonly kind: "ok"; readonly body: any }
  | { readonly kind: "refused"; readonly status: number; readonly body: unknown };

export class FakeDiscordCdn {
  readonly requests: CdnRequest[] = [];
  /** Files the bot uploaded, in order. */
  readonly uploads: Array<{ readonly name: string; readonly data: Buffer }> = [];
  private readonly stored = new Map<string, StoredAttachment>();

  constructor(private readonly origin: () => string) {}

  /** A file a person attached in `channelId`; `expired`: its first link is already past its time (a resume a day later). */
  attachment(channelId: string, file: { name: string; contentType: string; data: Buffer; expired?: boolean }): APIAttachment {
    const id = nextSnowflake();
    this.stored.set(id, { id, channelId, name: file.name, contentType: file.contentType, data: file.data });
    return this.describe(this.stored.get(id)!, file.expired ? Date.now() - 60_000 : undefined);
  }

  /** The attachments of a message as Discord shows it now: links signed again. */
  resign(attachments: readonly APIAttachment[]): APIAttachment[] {
    return attachments.map((attachment) => {
      const stored = this.stored.get(attachment.id);
      return stored ? this.describe(stored) : attachment;
    });
  }

  /** POST /attachments/refresh-urls: each link of an attachment the CDN holds, signed again. */
  refreshUrls(body: any): { status: number; body: unknown } {
    const urls: unknown[] = Array.isArray(body?.attachment_urls) ? body.attachment_urls : [];
    if (urls.length === 0 || urls.length > 50 || urls.some((url) => typeof url !== "string"))
      return { status: 400, body: { message: "Invalid Form Body", code: 50035 } };
    const refreshed_urls = (urls as string[]).flatMap((original) => {
      const id = /^\/attachments\/\d+\/(\d+)\//.exec(new URL(original, "http://x").pathname)?.[1];
      const stored = id ? this.stored.get(id) : undefined;
      return stored ? [{ original, refreshed: this.describe(stored).url }] : [];
    });
    return { status: 200, body: { refreshed_urls } };
  }

  /** Answers CDN requests; false when the path is not the CDN's. */
  serve(request: IncomingMessage, response: ServerResponse): boolean {
    const url = new URL(request.url ?? "/", "http://x");
    const match = /^\/attachments\/(\d+)\/(\d+)\/[^/]+$/.exec(url.pathname);
    if (!match) return false;
    const stored = this.stored.get(match[2]!);
    const expiresAt = Number.parseInt(url.searchParams.get("ex") ?? "0", 16) * 1000;
    const live = stored !== undefined && stored.channelId === match[1] && Date.now() < expiresAt && url.searchParams.has("hm");
    this.requests.push({ path: url.pathname, headers: request.headers, status: live ? 200 : 404 });
    if (!live) response.writeHead(404, { "content-type": "text/plain" }).end("This content is no longer available.");
    else response.writeHead(200, { "content-type": stored.contentType, "content-length": String(stored.data.length) }).end(stored.data);
    return true;
  }

  /** The request body as the REST handlers read it: JSON, or a multipart upload checked as Discord checks it. */
  async parse(raw: Buffer, type: string | undefined, channelId: () => string | undefined): Promise<ParsedBody> {
    if (!type?.startsWith("multipart/form-data")) {
      const text = raw.toString("utf8");
      return { kind: "ok", body: text && type?.includes("json") ? JSON.parse(text) : text || undefined };
    }
    const form = await new Response(new Uint8Array(raw), { headers: { "content-type": type } }).formData();
    const payload = form.get("payload_json");
    const body = typeof payload === "string" ? JSON.parse(payload) : {};
    const parts = new Map<number, File>();
    for (const [key, value] of form.entries()) {
      const index = /^files\[(\d+)\]$/.exec(key);
      if (index && typeof value !== "string") parts.set(Number(index[1]), value);
    }
    if ([...parts.values()].some((file) => file.size > FAKE_UPLOAD_LIMIT))
      return { kind: "refused", status: 413, body: { message: "Request entity too large", code: 40005 } };
    const listed: Array<{ id: number | string; filename?: string }> = Array.isArray(body.attachments) ? body.attachments : [];
    if (listed.some((entry) => !parts.has(Number(entry.id))))
      return { kind: "refused", status: 400, body: { message: "Invalid Form Body", code: 50035 } };
    const attachments: APIAttachment[] = [];
    for (const [index, file] of parts) {
      const name = listed.find((entry) => Number(entry.id) === index)?.filename ?? file.name;
      const data = Buffer.from(await file.arrayBuffer());
      this.uploads.push({ name, data });
      attachments.push(this.attachment(channelId() ?? "0", { name, contentType: file.type || "application/octet-stream", data }));
    }
    return { kind: "ok", body: { ...body, attachments } };
  }

  private describe(stored: StoredAttachment, expiresAt = Date.now() + LINK_LIFETIME_MS): APIAttachment {
    const ex = Math.floor(expiresAt / 1000).toString(16);
    const query = `ex=${ex}&is=${Math.floor(Date.now() / 1000).toString(16)}&hm=${randomBytes(8).toString("hex")}`;
    const path = `/attachments/${stored.channelId}/${stored.id}/${encodeURIComponent(stored.name)}`;
    return {
      id: stored.id,
      filename: stored.name,
      size: stored.data.length,
      url: `${this.origin()}${path}?${query}`,
      proxy_url: `${this.origin()}${path}?${query}`,
      content_type: stored.contentType,
    };
  }
}
