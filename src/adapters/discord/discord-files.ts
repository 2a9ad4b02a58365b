// Discord's files, in and out. In: a message's (or /ask's) attachments as the core's file
// descriptors, downloaded from Discord's CDN without any token; a link or a redirect anywhere else
// is refused before any request (the only other origin is DISCORD_API_URL's, a configured
// Discord-compatible server: src/files/file-hosts.ts).
// CDN links expire (about a day): a link that answers 403/404, e.g. after a resume, is renewed
// once, by reading the message again (or, for /ask's file, which belongs to no message, with
// Discord's attachments/refresh-urls). Out: each answer file in a message of its own (multipart),
// within the bot's upload limit, which the core checks before any request.
import { Routes, type REST } from "discord.js";
import { z } from "zod";
import { downloadUrl } from "../../files/download.js";
import { fileHostsOf } from "../../files/file-hosts.js";
import { type Download, type DownloadRequest, type FileDescriptor, fileRefOf } from "../../files/file-ref.js";
import { isHtmlFile } from "../../files/file-kind.js";
import type { Logger } from "../../logger.js";
import type { SurfaceFileSupport } from "../core/surface.js";

/** What a bot may upload per file on a server without boosts (Discord answers 413 above it). */
export const DISCORD_UPLOAD_LIMIT_BYTES = 10 * 1024 * 1024;
export const DISCORD_CDN_ORIGINS = ["https://cdn.discordapp.com", "https://media.discordapp.net"];

/** An attachment as discord.js's `Attachment` (or the API's) describes it, as far as the bot reads it. */
export interface AttachmentLike {
  readonly id: string;
  readonly name: string;
  readonly contentType: string | null;
  readonly size: number;
  readonly url: string;
}

/** The attachments as descriptors; `at` is the message that holds them (to renew expired links), when there is one. */
export function discordFilesOf(
  attachments: Iterable<AttachmentLike>,
  at?: { readonly channel: string; readonly message: string },
): FileDescriptor[] {
  return [...attachments].map((attachment) => ({
    id: attachment.id,
    name: attachment.name,
    mime: attachment.contentType ?? "application/octet-stream",
    size: attachment.size,
    source: { url: attachment.url, ...(at ? { channel: at.channel, message: at.message } : {}) },
  }));
}

const MessageAttachments = z.object({ attachments: z.array(z.object({ id: z.string(), url: z.string() })).default([]) });
const RefreshedUrls = z.object({ refreshed_urls: z.array(z.object({ original: z.string(), refreshed: z.string() })).default([]) });

export interface DiscordFilesDeps {
  readonly rest: REST;
  /** DISCORD_API_URL, when set: its origin serves attachments too. */
  readonly apiUrl?: string;
  readonly logger: Logger;
  /** The largest file the bot uploads (a boosted server takes more); default DISCORD_UPLOAD_LIMIT_BYTES. */
  readonly uploadLimitBytes?: number;
}

export function createDiscordFiles(deps: DiscordFilesDeps): SurfaceFileSupport {
  const hosts = fileHostsOf("Discord", DISCORD_CDN_ORIGINS, deps.apiUrl);

  function fromCdn(url: string, file: FileDescriptor, request: DownloadRequest): Promise<Download> {
    return downloadUrl({
      ...request,
      url,
      hosts,
      ...(file.size === undefined ? {} : { declaredSize: file.size }),
      expectsHtml: isHtmlFile(file.name, file.mime),
    });
  }

  /** The attachment's link as the message holds it now; undefined when the message or the attachment is gone. */
  async function freshLink(file: FileDescriptor): Promise<string | undefined> {
    const { channel, message, url } = file.source;
    try {
      if (channel !== undefined && message !== undefined) {
        const fetched = MessageAttachments.parse(await deps.rest.get(Routes.channelMessage(channel, message)));
        return fetched.attachments.find((attachment) => attachment.id === file.id)?.url;
      }
      if (url === undefined) return undefined;
      const refreshed = RefreshedUrls.parse(await deps.rest.post("/attachments/refresh-urls", { body: { attachment_urls: [url] } }));
      return refreshed.refreshed_urls.find((entry) => entry.original === url)?.refreshed;
    } catch (error) {
      deps.logger.info({ err: error, channel, message }, "could not get a fresh link for an expired attachment");
      return undefined;
    }
  }

  return {
    uploads: true,
    uploadLimitBytes: deps.uploadLimitBytes ?? DISCORD_UPLOAD_LIMIT_BYTES,
    refFor(file) {
      return fileRefOf(file, async (request) => {
        const first = await fromCdn(file.source.url ?? "", file, request);
        if (first.kind === "ok" || first.reason !== "expired_link") return first;
        const renewed = await freshLink(file);
        return renewed === undefined || renewed === file.source.url ? first : fromCdn(renewed, file, request);
      });
    },
  };
}
