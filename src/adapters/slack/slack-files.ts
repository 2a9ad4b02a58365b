// Slack's files, in and out. In: the `files[]` of a message event (untrusted, checked here) as
// the core's file descriptors, downloaded from `url_private_download` (else `url_private`) with
// the bot token, only from Slack's file hosts or SLACK_API_URL's origin (a link or a redirect
// anywhere else is refused before any request: src/files/file-hosts.ts); Slack answers a login
// page in HTML when the app lacks files:read, which the downloader reports as exactly that. A
// file shared from another organisation over Slack Connect comes as its id alone
// (`file_access: "check_file_info"`): files.info describes it when the run starts. A reply in a
// thread also brings the thread root's files, read when the run starts. Out: an answer's files
// with Slack's external upload (files.getUploadURLExternal → upload → files.completeUploadExternal,
// which Bolt's filesUploadV2 does) into the answer's thread.
import type { webApi } from "@slack/bolt";
import type { TaskOrigin } from "../../contracts/types.js";
import { z } from "zod";
import { downloadUrl } from "../../files/download.js";
import { fileHostsOf } from "../../files/file-hosts.js";
import { type FileDescriptor, fileRefOf, unavailableFileRef } from "../../files/file-ref.js";
import { isHtmlFile } from "../../files/file-kind.js";
import type { Logger } from "../../logger.js";
import type { UploadFile } from "../core/cards.js";
import type { SurfaceFileSupport } from "../core/surface.js";
import { describeSlackError, slackErrorCode } from "./slack-api.js";
import type { Where } from "./slack-posts.js";

/**
 * Where Slack serves `url_private`: its commercial file host and GovSlack's (whose API is slack-gov.com),
 * and the two hosts its file host redirects to (Enterprise Grid's `files-origin`, and `slack-files.com`
 * for some files' `url_private`). Files are downloaded from these and SLACK_API_URL's origin only, and
 * only they get the bot token.
 */
export const SLACK_FILE_HOSTS = [
  "https://files.slack.com",
  "https://files-origin.slack.com",
  "https://slack-files.com",
  "https://files.slack-gov.com",
];

/** A file in a message event, as far as the bot reads it (Slack's `File` in @slack/types). */
const SlackFile = z.object({
  id: z.string().min(1).max(200),
  name: z.string().max(1_000).nullish(),
  title: z.string().max(1_000).nullish(),
  mimetype: z.string().max(200).default("application/octet-stream"),
  size: z.number().int().nonnegative().optional(),
  url_private: z.string().max(4_000).optional(),
  url_private_download: z.string().max(4_000).optional(),
  /** "tombstone" (deleted), "hidden_by_limit" (a free workspace's old file): no link to fetch. */
  mode: z.string().max(50).optional(),
  /** "check_file_info": Slack Connect's stub, the rest only from files.info. */
  file_access: z.string().max(50).optional(),
});

/** Where a descriptor's link comes from, when the event had none. */
function sourceOf(file: z.infer<typeof SlackFile>): Record<string, string> {
  const url = file.url_private_download ?? file.url_private;
  if (url) return { url };
  if (file.file_access === "check_file_info") return { check: "files.info" };
  return file.mode === "hidden_by_limit" ? { hidden: "plan" } : {};
}

/** Why a file has no link, in the words the model and the person get. */
function noLinkReason(source: Readonly<Record<string, string>>): string {
  if (source.unavailable) return source.unavailable;
  if (source.hidden) return "Slack hides this file: it is older than the workspace's plan keeps visible";
  return "Slack gave no link for this file";
}

/** Slack's files of an event or a message (`files[]`, untrusted): each one that can be read at all, in order. */
export function slackFilesOf(raw: unknown): FileDescriptor[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((item): FileDescriptor[] => {
    const parsed = SlackFile.safeParse(item);
    if (!parsed.success || parsed.data.mode === "tombstone") return [];
    const file = parsed.data;
    return [
      {
        id: file.id,
        name: file.name ?? file.title ?? file.id,
        mime: file.mimetype,
        ...(file.size === undefined ? {} : { size: file.size }),
        source: sourceOf(file),
      },
    ];
  });
}

const RootSource = z.object({ channel: z.string().min(1), thread_ts: z.string().min(1) });
const Replies = z.object({ messages: z.array(z.object({ ts: z.string(), files: z.unknown().optional() })).default([]) });

export interface SlackFilesDeps {
  /** The client of the origin's workspace. */
  readonly clientOf: (origin: TaskOrigin) => webApi.WebClient;
  /** Its bot token, asked right before each download (a rotating token may have changed since the message came). */
  readonly tokenOf: (origin: TaskOrigin) => Promise<string>;
  /** SLACK_API_URL, when set: its origin serves files too and gets the token (a Slack-compatible host, or the tests' fake). */
  readonly apiUrl?: string;
  readonly logger: Logger;
}

export function createSlackFiles(deps: SlackFilesDeps): SurfaceFileSupport {
  const hosts = fileHostsOf("Slack", SLACK_FILE_HOSTS, deps.apiUrl);
  return {
    uploads: true,
    refFor(file, origin) {
      const url = file.source.url;
      if (url === undefined)
        return unavailableFileRef(file, {
          kind: "failed",
          reason: file.source.scope === "missing" ? "missing_scope" : "failed_download",
          detail: noLinkReason(file.source),
        });
      return fileRefOf(file, async (request) => {
        let token: string;
        try {
          token = await deps.tokenOf(origin);
        } catch (error) {
          // Must not reject: a workspace with no token (uninstalled meanwhile) is a failed download.
          return { kind: "failed", reason: "failed_download", detail: `no Slack token for this workspace (${describeSlackError(error)})` };
        }
        return downloadUrl({
          ...request,
          url,
          hosts,
          authorization: `Bearer ${token}`,
          ...(file.size === undefined ? {} : { declaredSize: file.size }),
          expectsHtml: isHtmlFile(file.name, file.mime),
        });
      });
    },
    async describe(file, origin) {
      if (file.source.check !== "files.info") return file;
      try {
        const answer = await deps.clientOf(origin).files.info({ file: file.id });
        const [described] = slackFilesOf([answer.file]);
        if (described?.source.url) return described;
        return { ...file, source: { unavailable: "Slack's files.info gave no link for this file" } };
      } catch (error) {
        deps.logger.warn({ err: error, fileId: file.id }, "could not describe a Slack Connect file");
        if (slackErrorCode(error) === "missing_scope")
          return {
            ...file,
            source: { unavailable: "the Slack app lacks the files:read scope (files.info said missing_scope)", scope: "missing" },
          };
        return { ...file, source: { unavailable: `Slack would not describe this file (files.info: ${describeSlackError(error)})` } };
      }
    },
    async rootFiles(contextSource, origin) {
      const source = RootSource.safeParse(contextSource);
      if (!source.success) return [];
      try {
        const { channel, thread_ts } = source.data;
        const answer = Replies.parse(
          await deps.clientOf(origin).conversations.replies({ channel, ts: thread_ts, limit: 1, inclusive: true }),
        );
        const root = answer.messages.find((message) => message.ts === thread_ts);
        return root ? slackFilesOf(root.files) : [];
      } catch (error) {
        deps.logger.warn({ err: error }, `could not read the thread's first message for its files (${describeSlackError(error)})`);
        return [];
      }
    },
  };
}

/** Uploads the answer's files into its thread; false when Slack refused (logged). Never throws. */
export async function uploadFiles(client: webApi.WebClient, logger: Logger, where: Where, files: readonly UploadFile[]): Promise<boolean> {
  if (files.length === 0) return true;
  try {
    await client.filesUploadV2({
      channel_id: where.channel,
      ...(where.threadTs === undefined ? {} : { thread_ts: where.threadTs }),
      file_uploads: files.map((file) => ({ file: file.data, filename: file.name, title: file.name })),
    });
    return true;
  } catch (error) {
    const names = files.map((file) => file.name);
    logger.error(
      { err: error, channel: where.channel, files: names },
      `could not upload the answer's files (${describeSlackError(error)})`,
    );
    return false;
  }
}
