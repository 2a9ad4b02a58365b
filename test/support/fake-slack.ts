// A fake Slack on 127.0.0.1 for the real @slack/bolt and @slack/web-api: the Web API methods
// the bot uses (recorded with their arguments, scriptable failures) and a Socket Mode
// WebSocket endpoint (fake-slack-socket.ts). Keeps messages per channel so
// history, replies (paged with a cursor), updates and streams behave like the real thing.
// Channels are public unless a test says otherwise; ids starting with D are DMs. As strict as
// Slack where the bot's behaviour depends on it: ephemeral messages only to members, no private
// channel details without groups:read, streams that end after a while, after a pause or when too
// large (then refusing appends and stops, message_not_in_streaming_state), a streaming message
// that can't be updated or deleted until it stopped (streaming_state_conflict,
// cant_delete_message), messages over the length limit refused, buttons past Block Kit's limits
// refused (fake-slack-blocks.ts), and ephemeral messages shown to their one person alone, in no history.
import { createFakeSlackViews } from "./fake-slack-views.js";
import { EventEmitter, once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { attachSocketEndpoint, withDeadline, type SocketAck } from "./fake-slack-socket.js";
import { createFakeSlackFiles, SLACK_BOT_TOKEN } from "./fake-slack-files.js";
import { createFakeSlackOauth, DEFAULT_WORKSPACE, type FakeWorkspace } from "./fake-slack-oauth.js";
import { blockProblems } from "./fake-slack-blocks.js";
import {
  APP_ID,
  MARKDOWN_MAX_CHARS,
  BOT_USER_ID,
  DEFAULT_MEMBERS,
  MESSAGE_MAX_CHARS,
  TEAM_ID,
  type ChannelKind,
  type Failure,
  type FakeEphemeral,
  type FakeMessage,
  type FakeSlack,
  type FakeUser,
  type RecordedCall,
  type StreamLimits,
  shownText,
} from "./fake-slack-types.js";

export type { SocketAck };

export * from "./fake-slack-types.js";

/** `caller`: the workspace of the call's token; `token`: the token itself. */
type Handler = (args: Record<string, unknown>, caller: FakeWorkspace, token: string) => Record<string, unknown>;

/** Methods Slack answers without a bot token: the code exchange and refresh (client credentials), Socket Mode's (app token). */
const WITHOUT_BOT_TOKEN = new Set(["oauth.v2.access", "apps.connections.open"]);

function parseForm(raw: string): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    args[key] = /^[[{]/.test(value) ? safeJson(value) : value;
  }
  return args;
}

function safeJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const workspaceKey = (workspace: FakeWorkspace) =>
  workspace.orgInstall ? `E:${workspace.enterprise?.id ?? ""}` : `T:${workspace.team?.id ?? ""}`;

export async function startFakeSlack(): Promise<FakeSlack> {
  const calls: RecordedCall[] = [];
  const messages: FakeMessage[] = [];
  const ephemerals: FakeEphemeral[] = [];
  const failures = new Map<string, Failure[]>();
  const notMember = new Set<string>();
  const channelKinds = new Map<string, ChannelKind>();
  const events = new EventEmitter();
  events.setMaxListeners(0);
  let streamingError: string | undefined;
  const members = new Map<string, readonly string[]>();
  const missingScopes = new Set<string>();
  const users = new Map<string, FakeUser>();
  let streamLimits: StreamLimits = { maxAgeMs: 5 * 60_000, idleMs: 30_000, maxChars: 12_000 };
  let tsCounter = 0;
  let outage: { readonly failure: Failure; readonly until: number } | undefined;
  let port = 0;
  const views = createFakeSlackViews();
  const oauth = createFakeSlackOauth();
  /** The workspace whose token the call being handled carries (handlers run synchronously). */
  let caller: FakeWorkspace = DEFAULT_WORKSPACE;
  const botUsers = new Set([BOT_USER_ID]);

  const nextTs = () => `${1_700_000_000 + ++tsCounter}.000100`;
  const find = (channel: string, ts: string) => messages.find((m) => m.channel === channel && m.ts === ts);
  const str = (value: unknown) => (typeof value === "string" ? value : undefined);
  const botMessage = (args: Record<string, unknown>, extra: Partial<FakeMessage> = {}): FakeMessage => {
    const message: FakeMessage = {
      ts: nextTs(),
      channel: String(args.channel),
      thread_ts: str(args.thread_ts),
      user: caller.botUserId,
      bot_id: caller.botId,
      text: str(args.text) ?? str(args.markdown_text) ?? "",
      blocks: Array.isArray(args.blocks) ? args.blocks : undefined,
      ...metadataOf(args.metadata),
      chunks: [],
      ...extra,
    };
    messages.push(message);
    return message;
  };
  const notInChannel = (channel: unknown) => typeof channel === "string" && notMember.has(channel);
  /** Slack takes metadata as an object or its JSON; anything else is not kept. */
  const metadataOf = (value: unknown): Pick<FakeMessage, "metadata"> => {
    const parsed = typeof value === "string" ? (JSON.parse(value) as unknown) : value;
    if (typeof parsed !== "object" || parsed === null) return {};
    const { event_type, event_payload } = parsed as Record<string, unknown>;
    return typeof event_type === "string" && typeof event_payload === "object" && event_payload !== null
      ? { metadata: { event_type, event_payload: event_payload as Record<string, unknown> } }
      : {};
  };
  const listing = (list: FakeMessage[], args: Record<string, unknown> = {}) =>
    list.map(({ chunks, streaming: _streaming, streamStartedAt: _started, streamTouchedAt: _touched, metadata, ...rest }) => {
      const listed = { ...rest, text: shownText({ text: rest.text, chunks }) };
      return metadata && (args.include_all_metadata === true || args.include_all_metadata === "true") ? { ...listed, metadata } : listed;
    });
  const kindOf = (channel: string): ChannelKind => channelKinds.get(channel) ?? (channel.startsWith("D") ? "im" : "public");
  /** Slack's window: messages after `oldest` and before `latest` (inclusive only when asked). */
  const inWindow = (args: Record<string, unknown>) => (message: FakeMessage) => {
    const inclusive = args.inclusive === true || args.inclusive === "true" || args.inclusive === "1";
    const ts = Number(message.ts);
    if (args.latest !== undefined && (inclusive ? ts > Number(args.latest) : ts >= Number(args.latest))) return false;
    if (args.oldest !== undefined && (inclusive ? ts < Number(args.oldest) : ts <= Number(args.oldest))) return false;
    return true;
  };
  /** One page of `list`; the cursor is an opaque offset, as opaque to the client as Slack's. */
  const page = (list: FakeMessage[], args: Record<string, unknown>, defaultLimit: number) => {
    const offset =
      typeof args.cursor === "string" && args.cursor !== ""
        ? Number(Buffer.from(args.cursor, "base64").toString("utf8").replace("offset:", ""))
        : 0;
    const limit = Number(args.limit ?? defaultLimit);
    const end = offset + limit;
    const hasMore = end < list.length;
    return {
      messages: listing(list.slice(offset, end), args),
      has_more: hasMore,
      response_metadata: { next_cursor: hasMore ? Buffer.from(`offset:${end}`).toString("base64") : "" },
    };
  };

  const membersOf = (channel: string) => members.get(channel) ?? DEFAULT_MEMBERS;
  /** Everyone the fake has heard of is a full member of the workspace unless a test says otherwise. */
  const userOf = (id: string): FakeUser | undefined =>
    users.get(id) ?? (DEFAULT_MEMBERS.includes(id) || /^U0[A-Z]+$/.test(id) ? { team_id: TEAM_ID } : undefined);
  const tooLong = (args: Record<string, unknown>) => (str(args.text) ?? str(args.markdown_text) ?? "").length > MESSAGE_MAX_CHARS;
  /** Private channels and group DMs are described only with groups:read (mpim:read for group DMs). */
  const hiddenByScope = (channel: string) => missingScopes.has("groups:read") && kindOf(channel) === "private";
  /** A stream Slack still takes appends for: open, not too old, not paused too long. */
  const inStreamingState = (message: FakeMessage | undefined): boolean =>
    message?.streaming === "open" &&
    Date.now() - (message.streamStartedAt ?? 0) <= streamLimits.maxAgeMs &&
    Date.now() - (message.streamTouchedAt ?? 0) <= streamLimits.idleMs;
  /** What a stream call brings: its chunks, its markdown_text as one more. */
  const chunksOf = (args: Record<string, unknown>): unknown[] => [
    ...(typeof args.markdown_text === "string" && args.markdown_text !== "" ? [{ type: "markdown_text", text: args.markdown_text }] : []),
    ...(Array.isArray(args.chunks) ? args.chunks : []),
  ];
  /** Why a stream call is refused, if it is. */
  const streamRefusal = (message: FakeMessage | undefined, args: Record<string, unknown>) => {
    if (!message || !inStreamingState(message)) return "message_not_in_streaming_state";
    if ((str(args.markdown_text) ?? "").length > MARKDOWN_MAX_CHARS) return "msg_too_long";
    if (JSON.stringify([...message.chunks, ...chunksOf(args)]).length > streamLimits.maxChars) return "msg_too_long";
    return undefined;
  };

  const slackFiles = createFakeSlackFiles({
    origin: () => `http://127.0.0.1:${port}`,
    validToken: (token) => token === SLACK_BOT_TOKEN || oauth.issuedAndValid(token),
    missingScopes,
    canPost: (channel) => !notInChannel(channel),
    // A thread is there when its root is, or replies to it are (tests often leave the person's root message out).
    threadExists: (channel, ts) => find(channel, ts) !== undefined || messages.some((m) => m.channel === channel && m.thread_ts === ts),
    postFiles: (channel, threadTs, files) =>
      void botMessage(
        { channel, thread_ts: threadTs, text: "" },
        { files: files.map((file) => ({ id: file.id, name: file.filename, size: file.data.length })) },
      ),
  });

  const handlers: Record<string, Handler> = {
    ...slackFiles.api,
    ...oauth.api,
    "apps.connections.open": () => ({ ok: true, url: `${wsBase}/socket` }),
    "chat.postMessage": (args) => {
      if (notInChannel(args.channel)) return { ok: false, error: "not_in_channel" };
      if (tooLong(args)) return { ok: false, error: "msg_too_long" };
      const message = botMessage(args);
      return { ok: true, channel: message.channel, ts: message.ts, message: listing([message])[0] };
    },
    "chat.update": (args) => {
      const message = find(String(args.channel), String(args.ts));
      if (!message) return { ok: false, error: "message_not_found" };
      if (tooLong(args)) return { ok: false, error: "msg_too_long" };
      if (inStreamingState(message)) return { ok: false, error: "streaming_state_conflict" };
      // A stream Slack ended (its error pill) becomes an ordinary message again when updated.
      if (message.streaming === "open") message.streaming = "stopped";
      const text = str(args.text) ?? str(args.markdown_text);
      if (text !== undefined) {
        message.text = text;
        message.chunks = message.chunks.filter((chunk) => (chunk as { type?: string }).type !== "markdown_text");
      }
      if (Array.isArray(args.blocks)) message.blocks = args.blocks;
      Object.assign(message, metadataOf(args.metadata));
      return { ok: true, channel: message.channel, ts: message.ts, text: message.text };
    },
    "chat.getPermalink": (args) => {
      const message = find(String(args.channel), String(args.message_ts));
      if (!message) return { ok: false, error: "message_not_found" };
      return {
        ok: true,
        channel: message.channel,
        permalink: `https://fake.slack/archives/${message.channel}/p${message.ts.replace(".", "")}`,
      };
    },
    /** Slack opens a modal only for a trigger id it issued, of the last 3 seconds, once; and only a valid one (fake-slack-views.ts). */
    "views.open": (args) => views.open(args),
    "chat.delete": (args) => {
      const message = find(String(args.channel), String(args.ts));
      if (!message) return { ok: false, error: "message_not_found" };
      if (message.user !== caller.botUserId || inStreamingState(message)) return { ok: false, error: "cant_delete_message" };
      messages.splice(messages.indexOf(message), 1);
      return { ok: true, channel: message.channel, ts: message.ts };
    },
    "chat.postEphemeral": (args) => {
      if (!membersOf(String(args.channel)).includes(String(args.user))) return { ok: false, error: "user_not_in_channel" };
      const ts = nextTs();
      ephemerals.push({
        ts,
        user: String(args.user),
        channel: String(args.channel),
        thread_ts: str(args.thread_ts),
        text: str(args.text) ?? "",
        blocks: Array.isArray(args.blocks) ? args.blocks : undefined,
      });
      return { ok: true, message_ts: ts };
    },
    "chat.startStream": (args) => {
      if (streamingError) return { ok: false, error: streamingError };
      if ((str(args.markdown_text) ?? "").length > MARKDOWN_MAX_CHARS) return { ok: false, error: "msg_too_long" };
      if (JSON.stringify(chunksOf(args)).length > streamLimits.maxChars) return { ok: false, error: "msg_too_long" };
      const at = Date.now();
      const message = botMessage(
        { ...args, text: "", markdown_text: undefined },
        { streaming: "open", streamStartedAt: at, streamTouchedAt: at, chunks: chunksOf(args) },
      );
      return { ok: true, channel: message.channel, ts: message.ts };
    },
    "chat.appendStream": (args) => {
      const message = find(String(args.channel), String(args.ts));
      const refusal = streamRefusal(message, args);
      if (refusal || !message) return { ok: false, error: refusal };
      message.chunks.push(...chunksOf(args));
      message.streamTouchedAt = Date.now();
      return { ok: true, channel: message.channel, ts: message.ts };
    },
    /** The stream ends with what the call brings, its blocks at the bottom and its metadata. */
    "chat.stopStream": (args) => {
      const message = find(String(args.channel), String(args.ts));
      const refusal = streamRefusal(message, args);
      if (refusal || !message) return { ok: false, error: refusal };
      message.chunks.push(...chunksOf(args));
      if (Array.isArray(args.blocks)) message.blocks = args.blocks;
      Object.assign(message, metadataOf(args.metadata));
      message.streaming = "stopped";
      return { ok: true, channel: message.channel, ts: message.ts, message: listing([message])[0] };
    },
    "assistant.threads.setStatus": () => ({ ok: true }),
    "assistant.threads.setSuggestedPrompts": () => ({ ok: true }),
    "assistant.threads.setTitle": () => ({ ok: true }),
    "conversations.replies": (args) => {
      if (notInChannel(args.channel)) return { ok: false, error: "not_in_channel" };
      const root = String(args.ts);
      const thread = messages
        .filter((m) => m.channel === args.channel && (m.ts === root || m.thread_ts === root))
        .sort((a, b) => Number(a.ts) - Number(b.ts));
      if (thread.length === 0) return { ok: false, error: "thread_not_found" };
      return { ok: true, ...page(thread.filter(inWindow(args)), args, 1000) };
    },
    "conversations.info": (args) => {
      const channel = String(args.channel);
      const kind = kindOf(channel);
      if (hiddenByScope(channel)) return { ok: false, error: "missing_scope", needed: "groups:read", provided: "channels:read,chat:write" };
      return {
        ok: true,
        channel: {
          id: channel,
          is_channel: kind === "public" || kind === "private",
          is_private: kind !== "public",
          is_im: kind === "im",
          is_mpim: kind === "mpim",
          // Slack says whether the bot is in a channel; not for DMs.
          ...(kind === "public" || kind === "private" ? { is_member: !notMember.has(channel) } : {}),
        },
      };
    },
    /** Needs users:read; a user Slack does not know is user_not_found. */
    "users.info": (args) => {
      if (missingScopes.has("users:read"))
        return { ok: false, error: "missing_scope", needed: "users:read", provided: "channels:read,chat:write" };
      const id = String(args.user);
      const user = userOf(id);
      if (!user) return { ok: false, error: "user_not_found" };
      return {
        ok: true,
        user: { id, name: id.toLowerCase(), is_bot: false, deleted: false, is_restricted: false, is_ultra_restricted: false, ...user },
      };
    },
    "conversations.members": (args) => {
      const channel = String(args.channel);
      if (hiddenByScope(channel)) return { ok: false, error: "missing_scope", needed: "groups:read", provided: "channels:read,chat:write" };
      // A private conversation the bot is not in does not exist for it.
      if (notMember.has(channel) && kindOf(channel) !== "public") return { ok: false, error: "channel_not_found" };
      const list = [...membersOf(channel)];
      const offset = typeof args.cursor === "string" && args.cursor !== "" ? Number(args.cursor) : 0;
      const end = offset + Number(args.limit ?? 100);
      return { ok: true, members: list.slice(offset, end), response_metadata: { next_cursor: end < list.length ? String(end) : "" } };
    },
    "conversations.history": (args) => {
      if (notInChannel(args.channel)) return { ok: false, error: "not_in_channel" };
      const top = messages
        .filter((m) => m.channel === args.channel && (m.thread_ts === undefined || m.thread_ts === m.ts))
        .sort((a, b) => Number(b.ts) - Number(a.ts));
      return { ok: true, messages: listing(top.slice(0, Number(args.limit ?? 100)), args), has_more: false };
    },
  };

  function takeFailure(method: string, args: Record<string, unknown>): Failure | undefined {
    const queue = failures.get(method);
    const failure = queue?.[0];
    if (!queue || !failure || (failure.matching && !failure.matching(args))) return undefined;
    const left = (failure.times ?? 1) - 1;
    if (left <= 0) queue.shift();
    else queue[0] = { ...failure, times: left };
    return failure;
  }

  /** A stream still open is not shown whole yet: its text may still grow. */
  function shown(match: (text: string, message: FakeMessage) => boolean = () => true): FakeMessage[] {
    return messages
      .filter((message) => botUsers.has(message.user ?? "") && message.streaming !== "open" && match(shownText(message), message))
      .sort((a, b) => Number(a.ts) - Number(b.ts));
  }

  function record(call: RecordedCall): void {
    calls.push(call);
    events.emit("call", call);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (await slackFiles.serve(request, response)) return;
    const method = (request.url ?? "").replace(/^\/api\//, "").split("?")[0] ?? "";
    const raw = await readBody(request);
    const args = (request.headers["content-type"] ?? "").includes("json") ? (safeJson(raw) as Record<string, unknown>) : parseForm(raw);
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? str(args.token);
    const checked = WITHOUT_BOT_TOKEN.has(method) ? undefined : oauth.check(token);
    if (checked && !checked.ok) {
      response.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ ok: false, error: checked.error }));
      record({ method, args, status: 200, error: checked.error, ...(token ? { token } : {}) });
      return;
    }
    const by = checked?.ok ? { token: token!, workspace: workspaceKey(checked.workspace) } : token ? { token } : {};
    const failure = (outage && Date.now() < outage.until ? outage.failure : undefined) ?? takeFailure(method, args);
    if (failure?.hang) {
      record({ method, args, status: 0, ...by });
      return;
    }
    if (failure?.status !== undefined) {
      const headers: Record<string, string> =
        failure.retryAfterSeconds !== undefined ? { "Retry-After": String(failure.retryAfterSeconds) } : {};
      response.writeHead(failure.status, headers).end(failure.status === 429 ? "" : "fake failure");
      record({ method, args, status: failure.status, ...by });
      return;
    }
    if (failure?.holdUntil) await failure.holdUntil;
    const handler = handlers[method];
    caller = checked?.ok ? checked.workspace : DEFAULT_WORKSPACE;
    botUsers.add(caller.botUserId);
    const refused = Array.isArray(args.blocks) ? blockProblems(args.blocks) : [];
    const result = failure?.error
      ? { ok: false, error: failure.error }
      : refused.length > 0
        ? { ok: false, error: "invalid_blocks", errors: refused }
        : handler
          ? handler(args, caller, token ?? "")
          : { ok: false, error: "unknown_method" };
    caller = DEFAULT_WORKSPACE;
    if (failure?.appliedThenHang) {
      record({ method, args, status: 200, error: result.ok === false ? String(result.error) : undefined, ...by });
      return;
    }
    response.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(result));
    record({ method, args, status: 200, error: result.ok === false ? String(result.error) : undefined, ...by });
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => response.writeHead(500).end(String(error)));
  });
  const socketMode = attachSocketEndpoint(server, APP_ID);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  ({ port } = server.address() as AddressInfo);
  const wsBase = `ws://127.0.0.1:${port}`;

  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    calls,
    ...slackFiles.files,
    acks: socketMode.acks,
    trigger: (issuedAgoMs) => views.trigger(issuedAgoMs),
    opened: views.opened,
    callsTo: (method) => calls.filter((call) => call.method === method),
    ...oauth.controls,
    ephemeralsOf: (user) => ephemerals.filter((ephemeral) => ephemeral.user === user),
    waitForCall(method, match = () => true, timeoutMs = 10_000) {
      const existing = calls.find((call) => call.method === method && match(call));
      if (existing) return Promise.resolve(existing);
      let listener: (call: RecordedCall) => void = () => {};
      const found = new Promise<RecordedCall>((resolve) => {
        listener = (call) => {
          if (call.method === method && match(call)) resolve(call);
        };
        events.on("call", listener);
      });
      return withDeadline(found, timeoutMs, `a call to ${method}`).finally(() => events.off("call", listener));
    },
    fail(method, failure) {
      failures.set(method, [...(failures.get(method) ?? []), failure]);
    },
    failEverything(failure, forMs) {
      outage = { failure, until: Date.now() + forMs };
    },
    refuseStreaming(error = "feature_not_enabled") {
      streamingError = error;
    },
    nextTs,
    addMessage(message) {
      const stored: FakeMessage = { ...message, chunks: [] };
      messages.push(stored);
      return stored;
    },
    leaveChannel: (channel) => void notMember.add(channel),
    setChannelKind: (channel, kind) => void channelKinds.set(channel, kind),
    setMembers: (channel, people) => void members.set(channel, people),
    setUser: (id, user) => void users.set(id, user),
    withoutScope: (scope) => void missingScopes.add(scope),
    setStreamLimits(limits) {
      streamLimits = { ...streamLimits, ...limits };
    },
    message: find,
    shown,
    waitForShown(match, timeoutMs = 10_000) {
      const existing = shown(match)[0];
      if (existing) return Promise.resolve(existing);
      let listener: () => void = () => {};
      const found = new Promise<FakeMessage>((resolve) => {
        listener = () => {
          const message = shown(match)[0];
          if (message) resolve(message);
        };
        events.on("call", listener);
      });
      return withDeadline(found, timeoutMs, "a message showing the text").finally(() => events.off("call", listener));
    },
    leftStreaming: () => messages.filter((message) => message.streaming === "open"),
    threadMessages: (channel, threadTs) =>
      messages
        .filter((m) => m.channel === channel && m.thread_ts === threadTs && m.ts !== threadTs)
        .sort((a, b) => Number(a.ts) - Number(b.ts)),
    waitForSocket: socketMode.waitForSocket,
    holdGoodbyes: socketMode.holdGoodbyes,
    waitForSocketClosed: socketMode.waitForSocketClosed,
    sendEnvelope: socketMode.sendEnvelope,
    waitForAck: socketMode.waitForAck,
    async close() {
      socketMode.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
