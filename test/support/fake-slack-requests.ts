// What Slack sends to the bot: event and interactivity payloads, and signed HTTP delivery
// (X-Slack-Signature over `v0:<timestamp>:<body>` with the signing secret, optional retry headers).
import { createHmac } from "node:crypto";
import { APP_ID, BOT_USER_ID, TEAM_ID } from "./fake-slack.js";
import type { FakeMessage } from "./fake-slack-types.js";

export const SIGNING_SECRET = "fake-signing-secret";

let eventCounter = 0;
export const nextEventId = () => `Ev${String(++eventCounter).padStart(8, "0")}`;

export interface MessageFields {
  readonly user?: string;
  readonly text: string;
  readonly channel?: string;
  readonly ts: string;
  readonly thread_ts?: string;
  readonly bot_id?: string;
  readonly subtype?: string;
  /** Slack's file objects of the message (fake.addFile). */
  readonly files?: readonly object[];
  /** Another workspace than the fake's default one (TEAM_ID). */
  readonly workspace?: EventWorkspace;
}

/** Whose event it is: a workspace, maybe in an Enterprise Grid org, maybe under an org-wide install. */
export interface EventWorkspace {
  readonly team: string;
  readonly enterprise?: string;
  readonly orgInstall?: boolean;
  readonly botUserId?: string;
}

function envelope(event: Record<string, unknown>, eventId: string, workspace?: EventWorkspace): Record<string, unknown> {
  const team = workspace?.team ?? TEAM_ID;
  const enterprise = workspace?.enterprise;
  return {
    token: "legacy-verification-token",
    team_id: team,
    ...(enterprise ? { enterprise_id: enterprise } : {}),
    api_app_id: APP_ID,
    event,
    type: "event_callback",
    event_id: eventId,
    event_time: 1_700_000_000,
    authorizations: [
      {
        team_id: workspace?.orgInstall ? null : team,
        ...(enterprise ? { enterprise_id: enterprise } : { enterprise_id: null }),
        user_id: workspace?.botUserId ?? BOT_USER_ID,
        is_bot: true,
        is_enterprise_install: workspace?.orgInstall === true,
      },
    ],
  };
}

/** What Slack sends when a workspace uninstalls the app. */
export function appUninstalledEvent(workspace: EventWorkspace, eventId = nextEventId()): Record<string, unknown> {
  return envelope({ type: "app_uninstalled", event_ts: "1700000000.000100" }, eventId, workspace);
}

/** What Slack sends when tokens are revoked: `bot` lists the bot users whose tokens went. */
export function tokensRevokedEvent(workspace: EventWorkspace, tokens: { bot?: string[]; oauth?: string[] }, eventId = nextEventId()) {
  return envelope({ type: "tokens_revoked", tokens, event_ts: "1700000000.000100" }, eventId, workspace);
}

export function mentionEvent(fields: MessageFields, eventId = nextEventId()): Record<string, unknown> {
  return envelope(
    {
      type: "app_mention",
      user: fields.user ?? "U0ALICE",
      text: fields.text,
      ts: fields.ts,
      ...(fields.thread_ts ? { thread_ts: fields.thread_ts } : {}),
      ...(fields.bot_id ? { bot_id: fields.bot_id } : {}),
      ...(fields.files ? { files: fields.files } : {}),
      channel: fields.channel ?? "C0GENERAL",
      event_ts: fields.ts,
      team: fields.workspace?.team ?? TEAM_ID,
    },
    eventId,
    fields.workspace,
  );
}

export function directMessageEvent(fields: MessageFields, eventId = nextEventId()): Record<string, unknown> {
  return envelope(
    {
      type: "message",
      channel_type: "im",
      user: fields.user ?? "U0ALICE",
      text: fields.text,
      ts: fields.ts,
      ...(fields.thread_ts ? { thread_ts: fields.thread_ts } : {}),
      ...(fields.bot_id ? { bot_id: fields.bot_id } : {}),
      ...(fields.subtype ? { subtype: fields.subtype } : {}),
      ...(fields.files ? { files: fields.files } : {}),
      channel: fields.channel ?? "D0ALICE",
      event_ts: fields.ts,
      team: fields.workspace?.team ?? TEAM_ID,
    },
    eventId,
    fields.workspace,
  );
}

/**
 * What message.channels (message.groups: `channelType: "group"`) sends for a message in a channel the bot is in; a reply
 * in a thread carries `thread_ts` and `parent_user_id`, as Slack sends them.
 */
export function channelMessageEvent(
  fields: MessageFields & { readonly channelType?: "channel" | "group"; readonly parentUser?: string },
  eventId = nextEventId(),
): Record<string, unknown> {
  return envelope(
    {
      type: "message",
      channel_type: fields.channelType ?? "channel",
      user: fields.user ?? "U0ALICE",
      text: fields.text,
      ts: fields.ts,
      ...(fields.thread_ts ? { thread_ts: fields.thread_ts, parent_user_id: fields.parentUser ?? "U0ALICE" } : {}),
      ...(fields.bot_id ? { bot_id: fields.bot_id } : {}),
      ...(fields.subtype ? { subtype: fields.subtype } : {}),
      ...(fields.files ? { files: fields.files } : {}),
      channel: fields.channel ?? "C0GENERAL",
      event_ts: fields.ts,
      team: TEAM_ID,
    },
    eventId,
  );
}

/** The message an edit or a deletion is about: where, whose, and its text (as it reads now, for an edit). */
interface ChangedMessage {
  readonly user?: string;
  readonly channel?: string;
  readonly channelType?: "channel" | "group" | "im";
  /** The message's ts, and its thread's. */
  readonly ts: string;
  readonly thread_ts?: string;
  readonly text: string;
}

/**
 * What Slack sends when a person edits a message (message.channels, message.im …): a `message` event with subtype
 * message_changed, hidden, its own ts (the edit's), the message as it reads now with `edited`, and `previous_message`.
 */
export function messageChangedEvent(
  fields: ChangedMessage & {
    readonly previousText: string;
    /** When the edit was made. */
    readonly editedTs: string;
  },
  eventId = nextEventId(),
): Record<string, unknown> {
  const user = fields.user ?? "U0ALICE";
  const written = writtenOf({ ...fields, user });
  return hiddenChange("message_changed", fields, fields.editedTs, eventId, {
    message: { ...written, text: fields.text, edited: { user, ts: fields.editedTs } },
    previous_message: { ...written, text: fields.previousText },
  });
}

/** A person's message as the change events carry it. */
const writtenOf = (fields: { readonly user?: string; readonly ts: string; readonly thread_ts?: string }) => ({
  type: "message",
  user: fields.user ?? "U0ALICE",
  ts: fields.ts,
  team: TEAM_ID,
  ...(fields.thread_ts ? { thread_ts: fields.thread_ts } : {}),
});

/** The event both changes are: a hidden `message` of a subtype, at the change's own ts. */
function hiddenChange(
  subtype: "message_changed" | "message_deleted",
  fields: { readonly channel?: string; readonly channelType?: string },
  ts: string,
  eventId: string,
  rest: Record<string, unknown>,
): Record<string, unknown> {
  const where = { channel: fields.channel ?? "C0GENERAL", channel_type: fields.channelType ?? "channel" };
  return envelope({ type: "message", subtype, hidden: true, ...where, ts, event_ts: ts, ...rest }, eventId);
}

/** What Slack sends when a message is deleted: subtype message_deleted, hidden, `deleted_ts`, and `previous_message`. */
export function messageDeletedEvent(
  fields: ChangedMessage & {
    /** When it was deleted. */
    readonly deletedAt: string;
  },
  eventId = nextEventId(),
): Record<string, unknown> {
  return hiddenChange("message_deleted", fields, fields.deletedAt, eventId, {
    deleted_ts: fields.ts,
    previous_message: { ...writtenOf(fields), text: fields.text },
  });
}

/**
 * What Slack sends for a DM that @mentions the bot: the same message twice, as app_mention and
 * as message.im, with different event ids.
 */
export function directMentionEvents(fields: MessageFields): [Record<string, unknown>, Record<string, unknown>] {
  const channel = fields.channel ?? "D0ALICE";
  const mention = mentionEvent({ ...fields, channel });
  (mention.event as Record<string, unknown>).channel_type = "im";
  return [mention, directMessageEvent({ ...fields, channel })];
}

/** Opening the app's Messages tab (agent view): app_home_opened with tab "messages". */
export function messagesTabOpenedEvent(fields: { user?: string; channel?: string } = {}, eventId = nextEventId()) {
  return envelope(
    {
      type: "app_home_opened",
      user: fields.user ?? "U0ALICE",
      channel: fields.channel ?? "D0ALICE",
      tab: "messages",
      event_ts: "1700000000.000100",
    },
    eventId,
  );
}

/** What Slack sends (agent_view on) when what a person looks at changes: the entities, most relevant first; `{}` when none. */
export function appContextChangedEvent(
  fields: { user?: string; entities?: ReadonlyArray<{ type: string; value: unknown }> },
  eventId = nextEventId(),
): Record<string, unknown> {
  return envelope(
    {
      type: "app_context_changed",
      user: fields.user ?? "U0ALICE",
      channel: "D0ALICE",
      context: fields.entities ? { entities: fields.entities.map((entity) => ({ ...entity, team_id: TEAM_ID })) } : {},
      event_ts: "1700000000.000100",
    },
    eventId,
  );
}

export function assistantThreadStartedEvent(fields: { user?: string; channel?: string; threadTs: string }, eventId = nextEventId()) {
  return envelope(
    {
      type: "assistant_thread_started",
      assistant_thread: {
        user_id: fields.user ?? "U0ALICE",
        context: { channel_id: "C0GENERAL", team_id: TEAM_ID, enterprise_id: null },
        channel_id: fields.channel ?? "D0ALICE",
        thread_ts: fields.threadTs,
      },
      event_ts: fields.threadTs,
    },
    eventId,
  );
}

export interface ClickFields {
  readonly user: string;
  readonly actionId: string;
  readonly value: string;
  readonly channel: string;
  readonly messageTs: string;
  readonly threadTs?: string;
  readonly blocks?: unknown[];
  /** Issued by the fake (FakeSlack.trigger()) for a click that opens a modal; others carry one views.open refuses. */
  readonly triggerId?: string;
  /** A click on an ephemeral message: Slack sends no `message` then, only the container. */
  readonly ephemeral?: boolean;
  /** Another workspace than the fake's default one. */
  readonly workspace?: EventWorkspace;
}

export function blockActionPayload(fields: ClickFields): Record<string, unknown> {
  return {
    type: "block_actions",
    team: { id: fields.workspace?.team ?? TEAM_ID, domain: "fake" },
    ...(fields.workspace?.enterprise ? { enterprise: { id: fields.workspace.enterprise, name: "Org" } } : {}),
    is_enterprise_install: fields.workspace?.orgInstall === true,
    user: { id: fields.user, username: fields.user.toLowerCase(), team_id: fields.workspace?.team ?? TEAM_ID },
    api_app_id: APP_ID,
    token: "legacy-verification-token",
    container: {
      type: "message",
      message_ts: fields.messageTs,
      channel_id: fields.channel,
      is_ephemeral: fields.ephemeral === true,
      thread_ts: fields.threadTs,
    },
    trigger_id: fields.triggerId ?? "trigger-not-issued",
    channel: { id: fields.channel, name: "general" },
    ...(fields.ephemeral
      ? {}
      : {
          message: {
            type: "message",
            user: BOT_USER_ID,
            ts: fields.messageTs,
            ...(fields.threadTs ? { thread_ts: fields.threadTs } : {}),
            text: "approval",
            blocks: fields.blocks ?? [],
          },
        }),
    response_url: "http://127.0.0.1:1/unused",
    actions: [{ action_id: fields.actionId, block_id: "approval", type: "button", value: fields.value, action_ts: "1700000000.1" }],
  };
}

/** The value of the element with this action id, wherever it sits in the blocks. */
export function actionValue(blocks: unknown, actionId: string): string | undefined {
  if (Array.isArray(blocks)) return blocks.map((block) => actionValue(block, actionId)).find((value) => value !== undefined);
  if (typeof blocks !== "object" || blocks === null) return undefined;
  const element = blocks as Record<string, unknown>;
  if (element.action_id === actionId && typeof element.value === "string") return element.value;
  return Object.values(element)
    .map((child) => actionValue(child, actionId))
    .find((value) => value !== undefined);
}

/** `user`'s click on the button `actionId` of a message the bot posted, as Slack sends it. */
export function clickOnMessage(
  message: Pick<FakeMessage, "ts" | "channel" | "thread_ts" | "blocks">,
  click: { readonly user: string; readonly actionId: string; readonly triggerId?: string },
): Record<string, unknown> {
  const value = actionValue(message.blocks, click.actionId);
  if (value === undefined) throw new Error(`the message ${message.ts} has no ${click.actionId} button`);
  return blockActionPayload({
    user: click.user,
    actionId: click.actionId,
    value,
    channel: message.channel,
    messageTs: message.ts,
    threadTs: message.thread_ts ?? message.ts,
    blocks: message.blocks ?? [],
    ...(click.triggerId ? { triggerId: click.triggerId } : {}),
  });
}

/** What Slack sends when someone presses Send in a modal: the view with its input values. */
export function viewSubmissionPayload(fields: {
  user: string;
  callbackId: string;
  privateMetadata: string;
  values: Record<string, Record<string, { type: string; value: string | null }>>;
}) {
  return {
    type: "view_submission",
    team: { id: TEAM_ID, domain: "fake" },
    user: { id: fields.user, username: fields.user.toLowerCase(), team_id: TEAM_ID },
    api_app_id: APP_ID,
    token: "legacy-verification-token",
    trigger_id: "trigger-2",
    view: {
      id: "V0MODAL",
      team_id: TEAM_ID,
      type: "modal",
      callback_id: fields.callbackId,
      private_metadata: fields.privateMetadata,
      state: { values: fields.values },
      hash: "1",
      title: { type: "plain_text", text: "modal" },
      blocks: [],
      app_id: APP_ID,
      bot_id: "B0BOT",
    },
    response_urls: [],
  };
}

export interface SignOptions {
  readonly signingSecret?: string;
  /** Seconds since the epoch; default now. */
  readonly timestamp?: number;
  readonly retryNum?: number;
  readonly retryReason?: string;
  /** Replaces the computed signature (bad-signature tests). */
  readonly signature?: string;
}

export function sign(body: string, timestamp: number, signingSecret = SIGNING_SECRET): string {
  return `v0=${createHmac("sha256", signingSecret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

async function signedPost(url: string, body: string, contentType: string, options: SignOptions): Promise<{ status: number; text: string }> {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    "Content-Type": contentType,
    "X-Slack-Request-Timestamp": String(timestamp),
    "X-Slack-Signature": options.signature ?? sign(body, timestamp, options.signingSecret),
  };
  if (options.retryNum !== undefined) {
    headers["X-Slack-Retry-Num"] = String(options.retryNum);
    headers["X-Slack-Retry-Reason"] = options.retryReason ?? "http_timeout";
  }
  const response = await fetch(url, { method: "POST", headers, body });
  return { status: response.status, text: await response.text() };
}

export function postEvent(url: string, payload: Record<string, unknown>, options: SignOptions = {}) {
  return signedPost(url, JSON.stringify(payload), "application/json", options);
}

export function postInteraction(url: string, payload: Record<string, unknown>, options: SignOptions = {}) {
  return signedPost(
    url,
    new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
    "application/x-www-form-urlencoded",
    options,
  );
}
