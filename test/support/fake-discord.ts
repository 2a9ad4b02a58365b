// A fake Discord on 127.0.0.1 for the real discord.js: REST under `<apiUrl>/v10` (gateway
// info, interaction callbacks, webhook messages, channel messages, threads, application
// commands) and the gateway WebSocket (fake-discord-gateway.ts). Every REST call is
// recorded; a test can script failures (a 429 with its delay) and sends gateway dispatches
// for slash commands, button clicks and messages.
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  ChannelType,
  GatewayDispatchEvents,
  InteractionType,
  OverwriteType,
  PermissionFlagsBits,
  type APIAttachment,
  type APIMessage,
} from "discord.js";
import { CallLog, type RecordedCall, type ScriptedFailure } from "./fake-discord-calls.js";
import { FakeGateway } from "./fake-discord-gateway.js";
import { submittedData, type ModalEntries, type OpenedModal } from "./fake-discord-modals.js";
import { FakeDiscordCdn } from "./fake-discord-files.js";
import {
  answerCallback,
  botMessage,
  editMessage,
  invalidWebhookToken,
  tokenExpired,
  tooLongRefusal,
  componentsRefusal,
  type InteractionState,
} from "./fake-discord-messages.js";
import {
  apiChannel,
  apiGuild,
  apiInteraction,
  apiMember,
  apiMessage,
  apiUser,
  nextSnowflake,
  type FakeChannel,
  type FakeGuild,
  type FakeOverwrite,
  type FakeRole,
  type FakeUser,
} from "./fake-discord-payloads.js";

export type { FakeChannel, FakeOverwrite, FakeUser } from "./fake-discord-payloads.js";
export type { RecordedCall } from "./fake-discord-calls.js";
export { MESSAGE_MAX_CHARS } from "./fake-discord-messages.js";

export interface FakeDiscordOptions {
  readonly token?: string;
  readonly heartbeatIntervalMs?: number;
  readonly roles?: readonly FakeRole[];
  /** Stamps the recorded calls and counts the edit limit's window (a test's own clock); default Date.now. */
  readonly clock?: () => number;
  /**
   * A limit on editing one message: at most `edits` per `windowMs`, a 429 past it (Discord limits edits by route and
   * answers 429 with retry_after). Off unless asked: many older tests edit faster on purpose, to run quickly.
   */
  readonly editLimit?: { readonly edits: number; readonly windowMs: number };
}

/** The message an edit is of (a channel's, or an interaction webhook's). */
function editedMessage(method: string, path: string): string | undefined {
  if (method !== "PATCH") return undefined;
  return /^\/channels\/\d+\/messages\/\d+$/.test(path) || /^\/webhooks\/\d+\/[^/]+\/messages\/[^/]+$/.test(path) ? path : undefined;
}

type RouteHandler = (params: string[], body: any, query: URLSearchParams) => { status: number; body?: unknown };

export class FakeDiscord {
  readonly token: string;
  readonly applicationId = nextSnowflake();
  readonly bot: FakeUser = { id: nextSnowflake(), username: "agent-bot", bot: true };
  /** The role Discord creates for the bot when it joins (managed, tagged with the bot's id); autocomplete often offers it for "@agent-bot". */
  readonly botRole: FakeRole = { id: nextSnowflake(), name: "agent-bot", botId: this.bot.id };
  readonly guild: FakeGuild;
  readonly general: FakeChannel;
  readonly random: FakeChannel;
  /** Every message the fake holds, by id (edits applied in place). */
  readonly messages = new Map<string, APIMessage & { guild_id?: string }>();
  /** PUT application commands, by route. */
  readonly commands = new Map<string, unknown[]>();
  readonly gateway: FakeGateway;
  readonly apiUrl: string;
  /** Attachments on signed, expiring links, and the bot's uploads (fake-discord-files.ts). */
  readonly cdn: FakeDiscordCdn;

  /** The modals the bot answered interactions with, in order. */
  readonly modals: OpenedModal[] = [];

  private readonly channels = new Map<string, FakeChannel>();
  private readonly interactions = new Map<string, InteractionState>();
  /** People who take no direct messages from the bot (Discord answers 50007). */
  private readonly noDirectMessages = new Set<string>();
  /** Members of the guild: everyone who wrote, asked or clicked, with the roles set for them. */
  private readonly members = new Map<string, { user: FakeUser; roles: readonly string[] }>();
  private readonly log = new CallLog();
  private readonly routes: [string, RegExp, RouteHandler][];
  private readonly clock: () => number;
  private readonly editLimit: FakeDiscordOptions["editLimit"];
  /** When each message was edited, newest last. */
  private readonly edits = new Map<string, number[]>();
  /** The bot was removed from the guild: its channels and members answer Missing Access. */
  private botRemoved = false;

  private constructor(
    private readonly server: Server,
    options: FakeDiscordOptions,
  ) {
    this.token = options.token ?? "fake-bot-token";
    this.clock = options.clock ?? Date.now;
    this.editLimit = options.editLimit;
    const port = (server.address() as AddressInfo).port;
    this.apiUrl = `http://127.0.0.1:${port}/api`;
    this.cdn = new FakeDiscordCdn(() => `http://127.0.0.1:${port}`);
    const guildId = nextSnowflake();
    this.guild = { id: guildId, name: "Test Server", ownerId: nextSnowflake(), roles: [...(options.roles ?? []), this.botRole] };
    this.general = this.addChannel({ id: nextSnowflake(), name: "general", type: ChannelType.GuildText, guildId });
    this.random = this.addChannel({ id: nextSnowflake(), name: "random", type: ChannelType.GuildText, guildId });
    this.gateway = new FakeGateway(server, {
      token: this.token,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 45_000,
      ready: (sessionId) => ({
        v: 10,
        user: { ...apiUser(this.bot), verified: true, mfa_enabled: false, flags: 0 },
        guilds: [{ id: guildId, unavailable: true }],
        session_id: sessionId,
        resume_gateway_url: `ws://127.0.0.1:${port}/gateway`,
        shard: [0, 1],
        application: { id: this.applicationId, flags: 0 },
        private_channels: [],
      }),
      guilds: () => (this.botRemoved ? [] : [this.guildPayload()]),
    });
    this.routes = this.buildRoutes(port);
    server.on("request", (request, response) => void this.handle(request, response));
  }

  static async start(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
    const server = createServer();
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    return new FakeDiscord(server, options);
  }

  async close(): Promise<void> {
    await this.gateway.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  addChannel(channel: FakeChannel): FakeChannel {
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** A channel (or thread) the fake knows. */
  channel(id: string): FakeChannel | undefined {
    return this.channels.get(id);
  }

  /** A text channel of this server with these permission overwrites. */
  guildChannel(name: string, overwrites: readonly FakeOverwrite[]): FakeChannel {
    return this.addChannel({ id: nextSnowflake(), name, type: ChannelType.GuildText, guildId: this.guild.id, overwrites });
  }

  /**
   * A private thread under `parent` with these people and the bot in it, as Discord tells the bot it was added to
   * one (THREAD_CREATE); only its members, and those who may manage threads in `parent`, see it.
   */
  privateThread(parent: FakeChannel, name: string, members: readonly FakeUser[]): FakeChannel {
    const thread = this.addChannel({
      id: nextSnowflake(),
      name,
      type: ChannelType.PrivateThread,
      guildId: parent.guildId!,
      parentId: parent.id,
      ownerId: members[0]?.id ?? this.bot.id,
      threadMembers: [this.bot.id, ...members.map((member) => member.id)],
    });
    this.gateway.dispatch(GatewayDispatchEvents.ThreadCreate, apiChannel(thread));
    return thread;
  }

  /** An overwrite that hides a channel from everyone who is not allowed in by another one. */
  hiddenFromEveryone(): FakeOverwrite {
    return { id: this.guild.id, type: OverwriteType.Role, deny: PermissionFlagsBits.ViewChannel };
  }

  /**
   * The bot is removed from the guild (kicked, banned, or the guild deleted), as Discord tells it: GUILD_DELETE without
   * `unavailable`; from then on the guild's REST calls answer Missing Access.
   */
  removeBotFromGuild(): void {
    this.botRemoved = true;
    this.gateway.dispatch(GatewayDispatchEvents.GuildDelete, { id: this.guild.id });
  }

  /** The bot is added to the guild again: GUILD_CREATE with the whole guild, as for a server the bot joins. */
  addBotToGuild(): void {
    this.botRemoved = false;
    this.gateway.dispatch(GatewayDispatchEvents.GuildCreate, this.guildPayload());
  }

  /** GUILD_CREATE's `d`: the guild, its channels, the bot's member, and the active threads (and forum posts) it holds. */
  private guildPayload() {
    const guildId = this.guild.id;
    return apiGuild(
      this.guild,
      [...this.channels.values()].filter((channel) => channel.guildId === guildId && !channel.parentId),
      apiMember(this.bot, [this.botRole.id]),
      [...this.channels.values()].filter((channel) => channel.guildId === guildId && channel.parentId),
    );
  }

  /** The guild goes dark in an outage: GUILD_DELETE with `unavailable: true` (the bot is still in it). */
  guildOutage(): void {
    this.gateway.dispatch(GatewayDispatchEvents.GuildDelete, { id: this.guild.id, unavailable: true });
  }

  /** Makes `user` a member of the guild with these roles (GET member, and interactions that name no roles). */
  setMember(user: FakeUser, roles: readonly string[] = []): void {
    this.members.set(user.id, { user, roles });
  }

  /** `user` left the guild: GET member answers Unknown Member. */
  removeMember(user: FakeUser): void {
    this.members.delete(user.id);
  }

  /** A channel of another server the bot can see (post_message must refuse it). */
  foreignChannel(): FakeChannel {
    return this.addChannel({ id: nextSnowflake(), name: "elsewhere", type: ChannelType.GuildText, guildId: nextSnowflake() });
  }

  dmChannel(user: FakeUser): FakeChannel {
    return this.addChannel({ id: nextSnowflake(), name: "", type: ChannelType.DM, recipient: user });
  }

  get calls(): readonly RecordedCall[] {
    return this.log.calls;
  }

  /** The next request matching method and path gets this response instead. */
  failNext(failure: ScriptedFailure): void {
    this.log.failNext(failure);
  }

  /** The next matching request gets a 429 asking to retry after `retryAfterMs`. */
  rateLimitNext(method: string, path: RegExp, retryAfterMs: number): void {
    const seconds = (retryAfterMs / 1000).toFixed(3);
    this.failNext({
      method,
      path,
      status: 429,
      body: { message: "You are being rate limited.", retry_after: retryAfterMs / 1000, global: false },
      headers: {
        "retry-after": seconds,
        "x-ratelimit-limit": "5",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset-after": seconds,
        "x-ratelimit-bucket": "fake-bucket",
        "x-ratelimit-scope": "user",
      },
    });
  }

  callsTo(method: string, path: RegExp): RecordedCall[] {
    return this.log.callsTo(method, path);
  }

  waitForCall(...args: Parameters<CallLog["waitForCall"]>): Promise<RecordedCall> {
    return this.log.waitForCall(...args);
  }

  messagesIn(channelId: string): (APIMessage & { guild_id?: string })[] {
    return [...this.messages.values()].filter((message) => message.channel_id === channelId);
  }

  /** The interaction's token stops working, as it does 15 minutes after Discord sent it. */
  expireInteraction(token: string): void {
    const interaction = this.interactions.get(token);
    if (interaction) interaction.expired = true;
  }

  /** This person takes no direct messages from the bot (their privacy settings). */
  refuseDirectMessages(user: FakeUser): void {
    this.noDirectMessages.add(user.id);
  }

  /** The bot's DM channel with a person, if it opened one. */
  dmOf(user: FakeUser): FakeChannel | undefined {
    return [...this.channels.values()].find((channel) => channel.type === ChannelType.DM && channel.recipient?.id === user.id);
  }

  /** Dispatches a slash command; returns the interaction's id and token. */
  slashCommand(
    name: string,
    user: FakeUser,
    options: {
      channel?: FakeChannel;
      roles?: readonly string[];
      values?: Record<string, string>;
      /** Attachment options (type 11): the option holds the id, the attachment is in `resolved`. */
      attachments?: Record<string, APIAttachment>;
    } = {},
  ): { id: string; token: string } {
    const channel = options.channel ?? this.general;
    const attached = Object.entries(options.attachments ?? {});
    const data = {
      id: nextSnowflake(),
      name,
      type: 1,
      options: [
        ...Object.entries(options.values ?? {}).map(([optionName, value]) => ({ name: optionName, type: 3, value })),
        ...attached.map(([optionName, attachment]) => ({ name: optionName, type: 11, value: attachment.id })),
      ],
      ...(attached.length > 0
        ? { resolved: { attachments: Object.fromEntries(attached.map(([, attachment]) => [attachment.id, attachment])) } }
        : {}),
    };
    return this.dispatchInteraction(InteractionType.ApplicationCommand, user, channel, data, options.roles);
  }

  /** Dispatches a click on a button of a message the fake holds. */
  clickButton(messageId: string, customId: string, user: FakeUser, roles?: readonly string[]): { id: string; token: string } {
    const message = this.messages.get(messageId);
    if (!message) throw new Error(`FakeDiscord: no message ${messageId} to click on`);
    const channel = this.channels.get(message.channel_id);
    if (!channel) throw new Error(`FakeDiscord: message ${messageId} is in an unknown channel`);
    return this.dispatchInteraction(
      InteractionType.MessageComponent,
      user,
      channel,
      { custom_id: customId, component_type: 2 },
      roles,
      structuredClone(message),
    );
  }

  /** A person writes in a channel (MESSAGE_CREATE); `mentionBot` adds the bot mention. */
  /** `mentionBotRole`: the message mentions the bot's managed role instead of the bot (Discord then lists the role, not the bot, as mentioned). */
  userMessage(
    author: FakeUser,
    content: string,
    options: {
      channel?: FakeChannel;
      mentionBot?: boolean;
      mentionBotRole?: boolean;
      attachments?: readonly APIAttachment[];
      /** Other people the content mentions (Discord lists them in `mentions`). */
      mentions?: readonly FakeUser[];
    } = {},
  ): APIMessage {
    const channel = options.channel ?? this.general;
    const mentionBot = options.mentionBot ?? false;
    const mentionRole = options.mentionBotRole ?? false;
    const message = apiMessage({
      channelId: channel.id,
      ...(channel.guildId ? { guildId: channel.guildId } : {}),
      author,
      content: mentionBot ? `<@${this.bot.id}> ${content}` : mentionRole ? `<@&${this.botRole.id}> ${content}` : content,
      mentions: [...(mentionBot ? [this.bot] : []), ...(options.mentions ?? [])],
      mentionRoles: mentionRole ? [this.botRole.id] : [],
      ...(options.attachments ? { attachments: options.attachments } : {}),
    });
    this.messages.set(message.id, message);
    const { user: _user, ...member } = apiMember(author, this.memberOf(author).roles);
    this.gateway.dispatch(GatewayDispatchEvents.MessageCreate, {
      ...message,
      channel_type: channel.type,
      ...(channel.guildId ? { member } : {}),
    });
    return message;
  }

  /** The author edits a message (MESSAGE_UPDATE, the whole message as it reads now, stamped edited). */
  editMessage(messageId: string, content: string, options: { mentionBot?: boolean } = {}): APIMessage {
    const message = this.messages.get(messageId);
    if (!message) throw new Error(`FakeDiscord: no message ${messageId} to edit`);
    const mentionBot = options.mentionBot ?? false;
    const edited = {
      ...message,
      content: mentionBot ? `<@${this.bot.id}> ${content}` : content,
      mentions: mentionBot ? [apiUser(this.bot)] : message.mentions.filter((user) => user.id !== this.bot.id),
      edited_timestamp: new Date().toISOString(),
    };
    this.messages.set(messageId, edited);
    const channel = this.channels.get(message.channel_id);
    const author = this.members.get(message.author.id);
    const member = author ? (({ user: _user, ...rest }) => rest)(apiMember(author.user, author.roles)) : undefined;
    this.gateway.dispatch(GatewayDispatchEvents.MessageUpdate, { ...edited, ...(channel?.guildId && member ? { member } : {}) });
    return edited;
  }

  /** The message is deleted (MESSAGE_DELETE: its id and where it was, nothing about it). */
  deleteMessage(messageId: string): void {
    const message = this.messages.get(messageId);
    if (!message) throw new Error(`FakeDiscord: no message ${messageId} to delete`);
    this.messages.delete(messageId);
    const guildId = this.channels.get(message.channel_id)?.guildId;
    this.gateway.dispatch(GatewayDispatchEvents.MessageDelete, {
      id: messageId,
      channel_id: message.channel_id,
      ...(guildId ? { guild_id: guildId } : {}),
    });
  }

  private dispatchInteraction(
    type: InteractionType,
    user: FakeUser,
    channel: FakeChannel,
    data: Record<string, unknown>,
    givenRoles?: readonly string[],
    message?: APIMessage,
  ): { id: string; token: string } {
    const member = this.memberOf(user);
    const roles = givenRoles ?? member.roles;
    const id = nextSnowflake();
    const token = `interaction-token-${id}`;
    this.interactions.set(token, {
      id,
      channelId: channel.id,
      ...(channel.guildId ? { guildId: channel.guildId } : {}),
      acknowledged: false,
      createdAt: Date.now(),
      ...(message ? { originalId: message.id } : {}),
    });
    this.gateway.dispatch(
      GatewayDispatchEvents.InteractionCreate,
      apiInteraction({ id, token, applicationId: this.applicationId, user, channel, roles, data, type, ...(message ? { message } : {}) }),
    );
    return { id, token };
  }

  /** A person who shows up in the guild is a member (with no roles until a test sets some). */
  private memberOf(user: FakeUser): { user: FakeUser; roles: readonly string[] } {
    const known = this.members.get(user.id);
    if (known) return known;
    const member = { user, roles: [] };
    this.members.set(user.id, member);
    return member;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (this.cdn.serve(request, response)) return;
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const path = decodeURIComponent(url.pathname).replace(/^\/api\/v10/, "");
    const method = request.method ?? "GET";
    const parsed = await this.cdn.parse(Buffer.concat(chunks), request.headers["content-type"], () => this.channelOfPath(path));
    if (parsed.kind === "refused") {
      this.log.record({ method, path, query: url.searchParams, body: undefined, status: parsed.status, at: this.clock() });
      response.writeHead(parsed.status, { "content-type": "application/json" }).end(JSON.stringify(parsed.body));
      return;
    }
    const { body } = parsed;
    const reply = this.respond(method, path, body, url.searchParams, request.headers.authorization);
    this.log.record({ method, path, query: url.searchParams, body, status: reply.status, at: this.clock() });
    response.writeHead(reply.status, { ...(reply.body === undefined ? {} : { "content-type": "application/json" }), ...reply.headers });
    response.end(reply.body === undefined ? undefined : JSON.stringify(reply.body));
  }

  /** A 429 when the message took its limit of edits within the window; else the edit counts. */
  private overEditLimit(message: string | undefined): { status: number; body: unknown; headers: Record<string, string> } | undefined {
    if (message === undefined || !this.editLimit) return undefined;
    const now = this.clock();
    const recent = (this.edits.get(message) ?? []).filter((at) => now - at < this.editLimit!.windowMs);
    if (recent.length >= this.editLimit.edits) {
      const seconds = ((recent[0]! + this.editLimit.windowMs - now) / 1000).toFixed(3);
      const body = { message: "You are being rate limited.", retry_after: Number(seconds), global: false };
      return { status: 429, body, headers: { "retry-after": seconds, "x-ratelimit-remaining": "0", "x-ratelimit-reset-after": seconds } };
    }
    this.edits.set(message, [...recent, now]);
    return undefined;
  }

  /** Whether the request is about the guild: its own path, or one of its channels. */
  private inGuild(path: string): boolean {
    if (path.startsWith(`/guilds/${this.guild.id}/`)) return true;
    const channel = /^\/channels\/(\d+)/.exec(path)?.[1];
    return channel !== undefined && this.channels.get(channel)?.guildId === this.guild.id;
  }

  /** The channel a message request posts into: named in the path, or the interaction's of a webhook. */
  private channelOfPath(path: string): string | undefined {
    const channel = /^\/channels\/(\d+)\//.exec(path)?.[1];
    const token = /^\/webhooks\/\d+\/([^/]+)/.exec(path)?.[1];
    return channel ?? (token ? this.interactions.get(token)?.channelId : undefined);
  }

  private respond(
    method: string,
    path: string,
    body: any,
    query: URLSearchParams,
    authorization: string | undefined,
  ): { status: number; body?: unknown; headers?: Record<string, string> } {
    const failure = this.log.takeFailure(method, path, body);
    if (failure) return { status: failure.status, body: failure.body, ...(failure.headers ? { headers: failure.headers } : {}) };
    const refused = tooLongRefusal(method, body) ?? componentsRefusal(method, body);
    if (refused) return refused;
    const limited = this.overEditLimit(editedMessage(method, path));
    if (limited) return limited;
    const needsAuth = !path.startsWith("/interactions/") && !path.startsWith("/webhooks/");
    if (needsAuth && authorization !== `Bot ${this.token}`) return { status: 401, body: { message: "401: Unauthorized", code: 0 } };
    if (this.botRemoved && this.inGuild(path)) return { status: 403, body: { message: "Missing Access", code: 50001 } };
    for (const [routeMethod, pattern, handler] of this.routes) {
      const match = routeMethod === method ? pattern.exec(path) : null;
      if (match) return handler(match.slice(1), body, query);
    }
    return { status: 404, body: { message: "404: Not Found", code: 0 } };
  }

  private buildRoutes(port: number): [string, RegExp, RouteHandler][] {
    const unknownChannel = { status: 404, body: { message: "Unknown Channel", code: 10003 } };
    const unknownMessage = { status: 404, body: { message: "Unknown Message", code: 10008 } };
    const unknownWebhook = { status: 404, body: { message: "Unknown Webhook", code: 10015 } };
    return [
      [
        "GET",
        /^\/gateway\/bot$/,
        () => ({
          status: 200,
          body: {
            url: `ws://127.0.0.1:${port}/gateway`,
            shards: 1,
            session_start_limit: { total: 1000, remaining: 999, reset_after: 86_400_000, max_concurrency: 1 },
          },
        }),
      ],
      ["POST", /^\/interactions\/(\d+)\/([^/]+)\/callback$/, ([, token], body) => this.interactionCallback(token!, body)],
      [
        "POST",
        /^\/webhooks\/(\d+)\/([^/]+)$/,
        ([, token], body) => {
          const interaction = this.interactions.get(token!);
          if (!interaction?.acknowledged) return unknownWebhook;
          if (tokenExpired(interaction, Date.now())) return invalidWebhookToken;
          return { status: 200, body: this.store(this.botMessage(interaction.channelId, body, interaction.guildId)) };
        },
      ],
      [
        "DELETE",
        /^\/webhooks\/(\d+)\/([^/]+)\/messages\/([^/]+)$/,
        ([, token, messageId]) => {
          const interaction = this.interactions.get(token!);
          if (!interaction?.acknowledged) return unknownWebhook;
          if (tokenExpired(interaction, Date.now())) return invalidWebhookToken;
          const id = messageId === "@original" ? interaction.originalId : messageId;
          if (!id || !this.messages.delete(id)) return unknownMessage;
          return { status: 204 };
        },
      ],
      [
        "POST",
        /^\/users\/@me\/channels$/,
        (_params, body) => {
          const user = this.members.get(String(body?.recipient_id))?.user;
          if (!user) return { status: 400, body: { message: "Invalid Recipient(s)", code: 50033 } };
          const channel = this.dmOf(user) ?? this.dmChannel(user);
          return { status: 200, body: apiChannel(channel) };
        },
      ],
      [
        "PATCH",
        /^\/webhooks\/(\d+)\/([^/]+)\/messages\/([^/]+)$/,
        ([, token, messageId], body) => {
          const interaction = this.interactions.get(token!);
          if (!interaction?.acknowledged) return unknownWebhook;
          if (tokenExpired(interaction, Date.now())) return invalidWebhookToken;
          const id = messageId === "@original" ? interaction.originalId : messageId;
          const message = id ? this.messages.get(id) : undefined;
          return message ? { status: 200, body: editMessage(message, body) } : unknownMessage;
        },
      ],
      [
        "GET",
        /^\/guilds\/(\d+)\/members$/,
        ([guildId], _body, query) => {
          if (guildId !== this.guild.id || this.botRemoved) return { status: 403, body: { message: "Missing Access", code: 50001 } };
          // As Discord lists them: by id, after `after`, at most `limit` (1 to 1,000); the bot is a member too.
          const limit = Number(query.get("limit") ?? 1);
          if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
            return { status: 400, body: { message: "Invalid Form Body", code: 50035 } };
          const after = BigInt(query.get("after") ?? "0");
          const everyone = [{ user: this.bot, roles: [this.botRole.id] }, ...this.members.values()]
            .filter((member) => BigInt(member.user.id) > after)
            .sort((a, b) => (BigInt(a.user.id) < BigInt(b.user.id) ? -1 : 1));
          return { status: 200, body: everyone.slice(0, limit).map((member) => apiMember(member.user, member.roles)) };
        },
      ],
      [
        "GET",
        /^\/guilds\/(\d+)\/members\/(\d+)$/,
        ([guildId, userId]) => {
          const member = this.members.get(userId!);
          if (guildId !== this.guild.id) return { status: 404, body: { message: "Unknown Guild", code: 10004 } };
          return member
            ? { status: 200, body: apiMember(member.user, member.roles) }
            : { status: 404, body: { message: "Unknown Member", code: 10007 } };
        },
      ],
      [
        "GET",
        /^\/channels\/(\d+)\/thread-members$/,
        ([channelId]) => {
          const thread = this.channels.get(channelId!);
          if (!thread) return unknownChannel;
          if (thread.guildId === this.guild.id && this.botRemoved) return { status: 403, body: { message: "Missing Access", code: 50001 } };
          if (thread.type !== ChannelType.PublicThread && thread.type !== ChannelType.PrivateThread)
            return { status: 400, body: { message: "Cannot execute action on this channel type", code: 50024 } };
          // As Discord lists them (API v10) when `with_member` is not asked for: all of them, by id.
          const ids = [...(thread.threadMembers ?? [])].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
          return {
            status: 200,
            body: ids.map((id) => ({ id: thread.id, user_id: id, join_timestamp: new Date(0).toISOString(), flags: 0 })),
          };
        },
      ],
      [
        "GET",
        /^\/channels\/(\d+)$/,
        ([channelId]) => {
          const channel = this.channels.get(channelId!);
          return channel ? { status: 200, body: apiChannel(channel) } : unknownChannel;
        },
      ],
      [
        "GET",
        /^\/channels\/(\d+)\/messages$/,
        ([channelId], _body, query) => {
          if (!this.channels.has(channelId!)) return unknownChannel;
          const limit = Number(query.get("limit") ?? 50);
          return { status: 200, body: this.messagesIn(channelId!).reverse().slice(0, limit) };
        },
      ],
      ["POST", /^\/attachments\/refresh-urls$/, (_params, body) => this.cdn.refreshUrls(body)],
      [
        "GET",
        /^\/channels\/(\d+)\/messages\/(\d+)$/,
        ([channelId, messageId]) => {
          const message = this.messages.get(messageId!);
          if (!message || message.channel_id !== channelId) return unknownMessage;
          return { status: 200, body: { ...message, attachments: this.cdn.resign(message.attachments) } };
        },
      ],
      [
        "POST",
        /^\/channels\/(\d+)\/messages$/,
        ([channelId], body) => {
          const channel = this.channels.get(channelId!);
          if (!channel) return unknownChannel;
          if (channel.type === ChannelType.DM && channel.recipient && this.noDirectMessages.has(channel.recipient.id))
            return { status: 403, body: { message: "Cannot send messages to this user", code: 50007 } };
          return { status: 200, body: this.store(this.botMessage(channel.id, body, channel.guildId)) };
        },
      ],
      [
        "DELETE",
        /^\/channels\/(\d+)\/messages\/(\d+)$/,
        ([channelId, messageId]) => {
          const message = this.messages.get(messageId!);
          if (!message || message.channel_id !== channelId) return unknownMessage;
          // A bot deletes others' messages only with Manage Messages; the fake's bot deletes its own.
          if (message.author.id !== this.bot.id) return { status: 403, body: { message: "Missing Permissions", code: 50013 } };
          this.messages.delete(messageId!);
          return { status: 204 };
        },
      ],
      [
        "DELETE",
        /^\/channels\/(\d+)$/,
        ([channelId]) => {
          const channel = this.channels.get(channelId!);
          if (!channel) return unknownChannel;
          if (channel.ownerId !== this.bot.id) return { status: 403, body: { message: "Missing Permissions", code: 50013 } };
          this.channels.delete(channelId!);
          for (const [id, message] of this.messages) if (message.channel_id === channelId) this.messages.delete(id);
          return { status: 200, body: apiChannel(channel) };
        },
      ],
      [
        "PATCH",
        /^\/channels\/(\d+)\/messages\/(\d+)$/,
        ([channelId, messageId], body) => {
          const message = this.messages.get(messageId!);
          return message && message.channel_id === channelId ? { status: 200, body: editMessage(message, body) } : unknownMessage;
        },
      ],
      [
        "POST",
        /^\/channels\/(\d+)\/messages\/(\d+)\/threads$/,
        ([channelId, messageId], body) => this.startThread(channelId!, messageId!, body),
      ],
      [
        "PUT",
        /^\/applications\/(\d+)\/commands$/,
        ([applicationId], body) => this.putCommands(`global:${applicationId}`, applicationId!, body),
      ],
      [
        "PUT",
        /^\/applications\/(\d+)\/guilds\/(\d+)\/commands$/,
        ([applicationId, guildId], body) => this.putCommands(`guild:${guildId}`, applicationId!, body),
      ],
    ];
  }

  private interactionCallback(token: string, body: any): { status: number; body?: unknown } {
    const interaction = this.interactions.get(token);
    if (!interaction) return { status: 404, body: { message: "Unknown interaction", code: 10062 } };
    return answerCallback(interaction, body, {
      post: (content) => this.store(this.botMessage(interaction.channelId, content, interaction.guildId, 20)),
      find: (id) => this.messages.get(id),
      edit: editMessage,
      modal: (data) => this.modals.push({ token, data }),
    });
  }

  /** The person sends a modal the bot opened (MODAL_SUBMIT), with what they entered; fields they left keep its preset values. */
  submitModal(
    opened: OpenedModal,
    user: FakeUser,
    entries: ModalEntries = {},
    channel: FakeChannel = this.general,
  ): { id: string; token: string } {
    return this.dispatchInteraction(InteractionType.ModalSubmit, user, channel, submittedData(opened.data, entries));
  }

  private startThread(channelId: string, messageId: string, body: any): { status: number; body?: unknown } {
    const parent = this.channels.get(channelId);
    if (!parent) return { status: 404, body: { message: "Unknown Channel", code: 10003 } };
    if (parent.type !== ChannelType.GuildText && parent.type !== ChannelType.GuildAnnouncement) {
      return { status: 400, body: { message: "Cannot execute action on this channel type", code: 50024 } };
    }
    if (!this.messages.has(messageId)) return { status: 404, body: { message: "Unknown Message", code: 10008 } };
    const thread = this.addChannel({
      id: messageId,
      name: String(body?.name ?? ""),
      type: ChannelType.PublicThread,
      guildId: parent.guildId!,
      parentId: channelId,
      ownerId: this.bot.id,
    });
    // As Discord does: the gateway tells the thread's creator it exists.
    this.gateway.dispatch(GatewayDispatchEvents.ThreadCreate, { ...apiChannel(thread), newly_created: true });
    return { status: 201, body: apiChannel(thread) };
  }

  private putCommands(key: string, applicationId: string, body: unknown): { status: number; body: unknown } {
    const commands = (Array.isArray(body) ? body : []).map((command) => ({
      ...command,
      id: nextSnowflake(),
      application_id: applicationId,
      version: nextSnowflake(),
    }));
    this.commands.set(key, commands);
    return { status: 200, body: commands };
  }

  private botMessage(
    channelId: string,
    body: any,
    guildId: string | undefined,
    interactionType?: number,
  ): APIMessage & { guild_id?: string } {
    return botMessage({ bot: this.bot, applicationId: this.applicationId }, channelId, body, guildId, interactionType);
  }

  private store(message: APIMessage & { guild_id?: string }): APIMessage & { guild_id?: string } {
    this.messages.set(message.id, message);
    return message;
  }
}
