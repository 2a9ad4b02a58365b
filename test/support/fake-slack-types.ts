// The fake Slack's contract: the ids it answers with, the limits it enforces, what it records
// and keeps, and the controls a test has over it (fake-slack.ts implements them).
import type { OpenedView } from "./fake-slack-views.js";
import type { SocketEndpoint } from "./fake-slack-socket.js";
import type { FakeSlackFiles } from "./fake-slack-files.js";
import type { FakeSlackOauthControls } from "./fake-slack-oauth.js";

export const TEAM_ID = "T0TEAM";
export const BOT_USER_ID = "U0BOT";
export const BOT_ID = "B0BOT";
export const APP_ID = "A0APP";
/** Who is in a channel unless a test says otherwise. */
export const DEFAULT_MEMBERS = [BOT_USER_ID, "U0ALICE", "U0BOB", "U0CAROL", "U0BOSS", "U0MALLORY"];
/** Slack refuses longer message text with msg_too_long (stricter than Slack's own 40,000: what a person can read in one message). */
export const MESSAGE_MAX_CHARS = 4_000;

export interface StreamLimits {
  /** After this long a stream takes no more appends (message_not_in_streaming_state). */
  readonly maxAgeMs: number;
  /** A stream that took nothing for this long ends too (developers report about 30 s). */
  readonly idleMs: number;
  /** The chunks one streamed message may hold (JSON characters) before msg_too_long. */
  readonly maxChars: number;
}

/** Slack's limit on one call's markdown_text. */
export const MARKDOWN_MAX_CHARS = 12_000;

export interface RecordedCall {
  readonly method: string;
  readonly args: Record<string, unknown>;
  /** The token the call was made with (Authorization header, or the `token` argument). */
  readonly token?: string;
  /** The workspace (`T:<team>` or `E:<org>`) of that token, when Slack took it. */
  readonly workspace?: string;
  /** HTTP status the fake answered with. */
  readonly status: number;
  /** The `error` field when the fake answered ok: false. */
  readonly error?: string;
}

/** An ephemeral message as its one person sees it. */
export interface FakeEphemeral {
  readonly ts: string;
  readonly user: string;
  readonly channel: string;
  readonly thread_ts?: string;
  readonly text: string;
  readonly blocks?: unknown[];
}

export interface FakeMessage {
  ts: string;
  channel: string;
  thread_ts?: string;
  user?: string;
  bot_id?: string;
  text: string;
  blocks?: unknown[];
  /** Slack's message metadata (`event_type`, `event_payload`); listed only when asked with include_all_metadata. */
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
  chunks: unknown[];
  /** A streamed message: "open" from chat.startStream until chat.stopStream, or a chat.update that took over one Slack ended. */
  streaming?: "open" | "stopped";
  /** The files a message shows: Slack's file objects (a person's, from addFile) or the bot's uploads. */
  files?: readonly object[];
  streamStartedAt?: number;
  /** When the stream last took something. */
  streamTouchedAt?: number;
}

/** What a person sees of a message: its text, then the markdown its stream brought. */
export function shownText(message: Pick<FakeMessage, "text" | "chunks">): string {
  const streamed = message.chunks.map((chunk) => {
    const { type, text } = chunk as { type?: string; text?: unknown };
    return type === "markdown_text" && typeof text === "string" ? text : "";
  });
  return [message.text, ...streamed].join("");
}

export interface Failure {
  /** HTTP status (429, 500…); with `error` instead, a 200 carrying ok: false. */
  readonly status?: number;
  readonly retryAfterSeconds?: number;
  readonly error?: string;
  /** Only calls whose arguments match fail (the others go through while this one waits); default every call. */
  readonly matching?: (args: Record<string, unknown>) => boolean;
  /** How many calls fail; default 1. */
  readonly times?: number;
  /** Record the call and never answer it (a process killed during the call). */
  readonly hang?: true;
  /** Apply the call (a post is in the channel) but never answer it: a process killed after Slack applied its call, before it heard back. */
  readonly appliedThenHang?: true;
  /** Answer the call normally, but only once this settles (a slow platform the test releases). */
  readonly holdUntil?: Promise<void>;
}

export type ChannelKind = "public" | "private" | "im" | "mpim";

/** What users.info tells about a person (Slack's fields); guests are restricted, Slack Connect people have another team. */
export interface FakeUser {
  readonly team_id: string;
  readonly is_restricted?: boolean;
  readonly is_ultra_restricted?: boolean;
  readonly is_stranger?: boolean;
  /** The person's timezone (IANA), as their profile says. */
  readonly tz?: string;
  /** Deactivated: the person left the workspace. */
  readonly deleted?: boolean;
  /** An admin or owner of the workspace, as users.info says. */
  readonly is_admin?: boolean;
  readonly is_owner?: boolean;
}

export interface FakeSlack extends Omit<SocketEndpoint, "close">, FakeSlackFiles, FakeSlackOauthControls {
  /** Base URL for SLACK_API_URL / slackApiUrl. */
  readonly apiUrl: string;
  /** A trigger id as Slack issues one in an interaction's payload: views.open takes it within 3 s, once (`issuedAgoMs` ages it). */
  trigger(issuedAgoMs?: number): string;
  /** The modals views.open accepted, in order. */
  readonly opened: readonly OpenedView[];
  readonly calls: readonly RecordedCall[];
  callsTo(method: string): RecordedCall[];
  /** The ephemeral messages Slack showed `user` (to them alone, where they were posted; they are in no history), oldest first. */
  ephemeralsOf(user: string): FakeEphemeral[];
  /** Resolves with the first call (past or future) to `method` that satisfies `match`. */
  waitForCall(method: string, match?: (call: RecordedCall) => boolean, timeoutMs?: number): Promise<RecordedCall>;
  fail(method: string, failure: Failure): void;
  /** Every method answers `failure` for the next `forMs` (an outage: 429 with Retry-After, or 500s, none of them applied). */
  failEverything(failure: Failure, forMs: number): void;
  /** chat.startStream answers ok: false (an app without the agent features). */
  refuseStreaming(error?: string): void;
  /** Seeds a message as if a person (or another bot) wrote it. */
  addMessage(message: Omit<FakeMessage, "chunks">): FakeMessage;
  /** The ts Slack gives the next message, after every one so far (a person's message a test sends, to add and deliver). */
  nextTs(): string;
  /** The bot is not a member: history and posts answer not_in_channel. */
  leaveChannel(channel: string): void;
  /** conversations.info describes the channel as this kind (default: public, or im for D… ids). */
  setChannelKind(channel: string, kind: ChannelKind): void;
  /** conversations.members and postEphemeral see these people in the channel (default DEFAULT_MEMBERS). */
  setMembers(channel: string, users: readonly string[]): void;
  /** The app lacks this scope: methods that need it (for a channel kind) answer missing_scope. */
  withoutScope(scope: "groups:read" | "users:read" | "files:read" | "files:write"): void;
  /** What users.info answers for this person (default: a full member of TEAM_ID for U0… ids, user_not_found otherwise). */
  setUser(id: string, user: FakeUser): void;
  /** How long and large a stream may grow (default 5 minutes, 30 s without an append, and 12,000 characters). */
  setStreamLimits(limits: Partial<StreamLimits>): void;
  message(channel: string, ts: string): FakeMessage | undefined;
  /** The bot's messages a person sees whole (posted, or streamed and ended) whose shown text satisfies `match`, oldest first. */
  shown(match?: (text: string, message: FakeMessage) => boolean): FakeMessage[];
  /** Resolves with the first of the bot's messages (past or future) that shows whole a text satisfying `match`. */
  waitForShown(match: (text: string, message: FakeMessage) => boolean, timeoutMs?: number): Promise<FakeMessage>;
  /** Streamed messages never stopped nor taken over: still typing, or left as Slack's error pill once their stream timed out. */
  leftStreaming(): FakeMessage[];
  threadMessages(channel: string, threadTs: string): FakeMessage[];
  close(): Promise<void>;
}
