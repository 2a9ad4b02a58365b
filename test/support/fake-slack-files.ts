// The fake Slack's files, served the way Slack serves them: private URLs (`url_private`,
// `url_private_download`) that need the bot token in `Authorization: Bearer`, answering
// Slack's sign-in page (HTML, 200) to a request without it, with another token, or from an
// app without files:read; and the external upload: files.getUploadURLExternal (filename and
// length required, files:write needed) → the bytes POSTed to the upload URL (exactly the
// length asked for, else 400) → files.completeUploadExternal (every file uploaded, the bot a
// member of the channel, a thread that exists), which posts the files as a bot message. A file
// shared over Slack Connect comes in events as a stub (`file_access: "check_file_info"`, its id
// alone); files.info (files:read) gives its whole object. Every file request is recorded with its headers.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";

export const SLACK_BOT_TOKEN = "xoxb-test-token";
export const SLACK_LOGIN_PAGE =
  "<!DOCTYPE html><html><head><title>Sign in | Slack</title></head><body>Sign in to your workspace</body></html>";

/** A file in a message event, as Slack sends it (@slack/types' File, the fields the bot reads and a few more). */
export interface SlackFileObject {
  readonly id: string;
  readonly name: string;
  readonly title: string;
  readonly mimetype: string;
  readonly filetype: string;
  readonly size: number;
  readonly mode: "hosted";
  readonly url_private: string;
  readonly url_private_download: string;
}

export interface FileRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

export interface UploadedFile {
  readonly id: string;
  readonly filename: string;
  readonly data: Buffer;
  readonly channel: string;
  readonly threadTs?: string;
}

export interface FakeSlackFileOptions {
  readonly name: string;
  readonly mimetype: string;
  readonly data: Buffer;
  /** What the event says the size is (default the data's); Slack's own is right, a test may make it lie. */
  readonly size?: number;
  /** Answer the private URL with a redirect here instead of the bytes. */
  readonly redirectTo?: string;
}

/** A file from another organisation in a Slack Connect channel, as events carry it. */
export interface SlackConnectFileStub {
  readonly id: string;
  readonly mode: "file_access";
  readonly file_access: "check_file_info";
  readonly created: 0;
  readonly timestamp: 0;
  readonly user: "";
}

export interface FakeSlackFiles {
  /** A file a person shared: its object goes into a message event's `files[]`. */
  addFile(file: FakeSlackFileOptions): SlackFileObject;
  /** The stub an event carries for a file shared over Slack Connect (the file itself is added as by addFile). */
  connectStub(file: SlackFileObject): SlackConnectFileStub;
  readonly fileRequests: readonly FileRequest[];
  /** Files the bot uploaded and completed, in order. */
  readonly uploaded: readonly UploadedFile[];
}

type Args = Record<string, unknown>;

export interface SlackFileDeps {
  readonly origin: () => string;
  readonly missingScopes: ReadonlySet<string>;
  /** The bot may post in the channel (not_in_channel otherwise). */
  readonly canPost: (channel: string) => boolean;
  readonly threadExists: (channel: string, ts: string) => boolean;
  /** Posts the completed files as a bot message (in the thread when given). */
  readonly postFiles: (channel: string, threadTs: string | undefined, files: readonly UploadedFile[]) => void;
  /** Whether Slack still takes this bot token (issued, not expired, not revoked); default: only SLACK_BOT_TOKEN. */
  readonly validToken?: (token: string) => boolean;
}

const FilesArg = (value: unknown): Array<{ id: string; title?: string }> | undefined =>
  Array.isArray(value) && value.every((file) => typeof file === "object" && file !== null && typeof file.id === "string")
    ? (value as Array<{ id: string; title?: string }>)
    : undefined;

/** Slack takes the bytes raw or as the one file of a multipart form (how @slack/web-api sends them). */
async function uploadedBytes(body: Buffer, type: string | undefined): Promise<Buffer | undefined> {
  if (!type?.startsWith("multipart/form-data")) return body;
  const form = await new Response(new Uint8Array(body), { headers: { "content-type": type } }).formData().catch(() => undefined);
  const files = [...(form?.values() ?? [])].filter((value): value is File => typeof value !== "string");
  return files.length === 1 ? Buffer.from(await files[0]!.arrayBuffer()) : undefined;
}

export function createFakeSlackFiles(deps: SlackFileDeps) {
  const stored = new Map<string, { readonly options: FakeSlackFileOptions; readonly object: SlackFileObject }>();
  const pending = new Map<string, { readonly filename: string; readonly length: number; data?: Buffer }>();
  const fileRequests: FileRequest[] = [];
  const uploaded: UploadedFile[] = [];
  let next = 0;

  const api: Record<string, (args: Args) => Record<string, unknown>> = {
    "files.info": (args) => {
      if (deps.missingScopes.has("files:read")) return { ok: false, error: "missing_scope", needed: "files:read" };
      const found = typeof args.file === "string" ? stored.get(args.file) : undefined;
      return found ? { ok: true, file: found.object } : { ok: false, error: "file_not_found" };
    },
    "files.getUploadURLExternal": (args) => {
      if (deps.missingScopes.has("files:write")) return { ok: false, error: "missing_scope", needed: "files:write" };
      const length = Number(args.length);
      if (typeof args.filename !== "string" || args.filename === "" || !Number.isInteger(length) || length < 1)
        return { ok: false, error: "invalid_arguments" };
      const id = `F0UP${++next}`;
      pending.set(id, { filename: args.filename, length });
      return { ok: true, upload_url: `${deps.origin()}/upload/v1/${id}`, file_id: id };
    },
    "files.completeUploadExternal": (args) => {
      if (deps.missingScopes.has("files:write")) return { ok: false, error: "missing_scope", needed: "files:write" };
      const files = FilesArg(args.files);
      const channel = typeof args.channel_id === "string" ? args.channel_id : undefined;
      const threadTs = typeof args.thread_ts === "string" ? args.thread_ts : undefined;
      if (!files || files.length === 0) return { ok: false, error: "invalid_arguments" };
      if (files.some((file) => pending.get(file.id)?.data === undefined)) return { ok: false, error: "file_not_found" };
      if (channel === undefined) return { ok: true, files: files.map((file) => ({ id: file.id, title: file.title ?? "" })) };
      if (!deps.canPost(channel)) return { ok: false, error: "not_in_channel" };
      if (threadTs !== undefined && !deps.threadExists(channel, threadTs)) return { ok: false, error: "invalid_thread_ts" };
      const done = files.map((file) => {
        const upload = pending.get(file.id)!;
        pending.delete(file.id);
        return { id: file.id, filename: upload.filename, data: upload.data!, channel, ...(threadTs ? { threadTs } : {}) };
      });
      uploaded.push(...done);
      deps.postFiles(channel, threadTs, done);
      return { ok: true, files: done.map((file) => ({ id: file.id, title: file.filename })) };
    },
  };

  /** Answers the file host's and the upload URL's requests; false when the path is neither. */
  async function serve(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    const upload = /^\/upload\/v1\/([A-Z0-9]+)$/.exec(path);
    if (upload && request.method === "POST") {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const waiting = pending.get(upload[1]!);
      const data = await uploadedBytes(Buffer.concat(chunks), request.headers["content-type"]);
      if (!waiting || !data || data.length !== waiting.length) response.writeHead(400).end("bad upload");
      else {
        waiting.data = data;
        response.writeHead(200, { "content-type": "text/plain" }).end(`OK - ${data.length}`);
      }
      return true;
    }
    const file = /^\/files-pri\/[A-Z0-9]+-([A-Z0-9]+)\//.exec(path);
    if (!file) return false;
    fileRequests.push({ path, headers: request.headers });
    const found = stored.get(file[1]!);
    // Slack sends its sign-in page, not an error, to a request it won't serve a file to.
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    const valid = bearer !== undefined && (deps.validToken ? deps.validToken(bearer) : bearer === SLACK_BOT_TOKEN);
    if (!valid || deps.missingScopes.has("files:read")) {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(SLACK_LOGIN_PAGE);
      return true;
    }
    if (!found) response.writeHead(404, { "content-type": "text/plain" }).end("file_not_found");
    else if (found.options.redirectTo) response.writeHead(302, { location: found.options.redirectTo }).end();
    else
      response
        .writeHead(200, { "content-type": found.options.mimetype, "content-length": String(found.options.data.length) })
        .end(found.options.data);
    return true;
  }

  const files: FakeSlackFiles = {
    addFile(options) {
      const id = `F0FILE${++next}`;
      const base = `${deps.origin()}/files-pri/T0TEAM-${id}`;
      const object: SlackFileObject = {
        id,
        name: options.name,
        title: options.name,
        mimetype: options.mimetype,
        filetype: options.name.split(".").pop() ?? "binary",
        size: options.size ?? options.data.length,
        mode: "hosted",
        url_private: `${base}/${encodeURIComponent(options.name)}`,
        url_private_download: `${base}/download/${encodeURIComponent(options.name)}`,
      };
      stored.set(id, { options, object });
      return object;
    },
    connectStub: (file) => ({ id: file.id, mode: "file_access", file_access: "check_file_info", created: 0, timestamp: 0, user: "" }),
    fileRequests,
    uploaded,
  };
  return { api, serve, files };
}
