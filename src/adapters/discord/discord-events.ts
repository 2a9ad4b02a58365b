// Discord's events (untrusted) as the core's inputs: who acted (with their roles), where (a
// thread with its parent channel), and what they did. Each interaction is acknowledged first
// (Discord allows 3 s): /ask with a public deferred reply that later becomes the answer, the
// other commands with an ephemeral one, a button with a deferred update; everything after that
// goes through the interaction's webhook with its token (the reply handle), from any process.
// A message is for the bot when it mentions the bot (or its managed role, which autocomplete
// often inserts for "@bot") in a server channel, and always in a DM; the bot never answers itself,
// other bots or webhooks. Without the message content intent Discord still sends the content of
// these messages, so this works either way.
import {
  ChannelType,
  MessageFlags,
  Routes,
  type APIInteractionGuildMember,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Client,
  type GuildMember,
  type Interaction,
  type Message,
  type ModalSubmitInteraction,
} from "discord.js";
import { z } from "zod";
import type { Logger } from "../../logger.js";
import { spotOf, takeButton, type Someone, type SurfaceCore } from "../core/inbound.js";
import type { Spot } from "../core/spot.js";
import { parseButton } from "./buttons.js";
import { modalInputs, parseFormButton, parseFormModalId } from "./form-modal.js";
import { ASK, FILE_OPTION, QUESTION_OPTION } from "./command-definitions.js";
import { discordFilesOf } from "./discord-files.js";
import {
  conversationAt,
  encodeInteraction,
  personOf,
  type ChannelKind,
  type DiscordPlace,
  type Interaction as Handle,
} from "./discord-place.js";
import { NO_PINGS } from "./messages.js";
import { mayBeThreadReply } from "./thread-replies.js";

type Mentioning = Pick<Message, "author" | "webhookId" | "system" | "guildId" | "mentions">;
// A message's attachments (and /ask's file option) come along as the question's files.

/** The ids of the bot's own managed roles this message mentions (Discord tags them with the bot's id). */
export function botRolesMentioned(message: Pick<Message, "mentions">, botId: string): string[] {
  return [...message.mentions.roles.values()].filter((role) => role.tags?.botId === botId).map((role) => role.id);
}

export function isForBot(message: Mentioning, botId: string): boolean {
  if (message.author.bot || message.webhookId || message.system || message.author.id === botId) return false;
  return message.guildId === null || message.mentions.users.has(botId) || botRolesMentioned(message, botId).length > 0;
}

/** The message without the bot's mention (`<@id>`, `<@!id>`, or `<@&role>` for its managed roles). */
export function questionOf(content: string, botId: string, botRoles: readonly string[] = []): string {
  const mentions = [`<@${botId}>`, `<@!${botId}>`, ...botRoles.map((role) => `<@&${role}>`)];
  return mentions.reduce((text, mention) => text.replaceAll(mention, ""), content).trim();
}

/** What the core hands back to settle a clicked approval message: its text, and the click's token to edit it with. */
export interface DiscordClicked {
  readonly content: string;
  readonly messageId: string;
  readonly interaction: Handle;
  /** The approval the clicked message asks for (its buttons stay, disabled). */
  readonly approval?: { readonly runId: string; readonly callId: string };
  /** A form's Answer click, left unanswered so it can open the modal: its first answer, once (in this process only). */
  readonly pending?: PendingClick;
}

/** A click the adapter has not answered yet: it answers with a modal, or privately with a text. */
export interface PendingClick {
  showModal(modal: object): Promise<boolean>;
  reply(text: string): Promise<boolean>;
}

export interface EventDeps {
  readonly client: Client;
  readonly clock: () => number;
  readonly logger: Logger;
}

const KIND_OF = new Map<ChannelType, ChannelKind>([
  [ChannelType.GuildText, "text"],
  [ChannelType.GuildAnnouncement, "text"],
  [ChannelType.PublicThread, "thread"],
  [ChannelType.PrivateThread, "thread"],
  [ChannelType.AnnouncementThread, "thread"],
  [ChannelType.DM, "dm"],
  [ChannelType.GroupDM, "dm"],
]);

export const channelKindOf = (type: ChannelType | undefined): ChannelKind =>
  (type === undefined ? undefined : KIND_OF.get(type)) ?? "other";

const ChannelFacts = z.object({ type: z.number(), parent_id: z.string().nullish(), owner_id: z.string().nullish() });

export function roleIdsOf(member: GuildMember | APIInteractionGuildMember | null): readonly string[] {
  if (!member) return [];
  return Array.isArray(member.roles) ? member.roles : [...member.roles.cache.keys()];
}

/** A thread (or forum post) and the channel it belongs to; a channel the cache does not know is asked for once. */
export async function placeIn(
  deps: EventDeps,
  source: { readonly guildId: string | null; readonly channelId: string; readonly channel: unknown },
): Promise<Pick<DiscordPlace, "guild" | "channel" | "parent" | "channelKind"> & { readonly owner?: string }> {
  const cached = source.channel as { type?: ChannelType; parentId?: string | null; ownerId?: string | null } | null;
  let type = typeof cached?.type === "number" ? cached.type : undefined;
  let parent = cached?.parentId ?? undefined;
  let owner = cached?.ownerId ?? undefined;
  // A channel the cache half knows (a thread it saw only in a message) is asked for: its parent governs it.
  if (source.guildId && (type === undefined || (channelKindOf(type) === "thread" && !parent))) {
    const fetched = ChannelFacts.safeParse(await deps.client.rest.get(Routes.channel(source.channelId)).catch(() => undefined));
    if (fetched.success) {
      type = fetched.data.type as ChannelType;
      parent = fetched.data.parent_id ?? undefined;
      owner = fetched.data.owner_id ?? undefined;
    }
  }
  const channelKind = channelKindOf(type);
  return {
    guild: source.guildId,
    channel: source.channelId,
    ...(channelKind === "thread" && parent ? { parent } : {}),
    channelKind,
    ...(channelKind === "thread" && owner ? { owner } : {}),
  };
}

function someoneIn(interaction: Interaction): Someone {
  return { ...personOf(interaction.user), roles: roleIdsOf(interaction.member) };
}

async function spotOfInteraction(deps: EventDeps, interaction: Interaction, handle: Handle): Promise<Spot | undefined> {
  const { channelId } = interaction;
  if (!channelId) return undefined;
  const place = await placeIn(deps, { guildId: interaction.guildId, channelId, channel: interaction.channel });
  return spotOf("discord", conversationAt({ ...place, interaction: interaction.id }), someoneIn(interaction), encodeInteraction(handle));
}

/** The command's string options by name (the only kind our commands have), as Discord sent them. */
function stringOptions(interaction: ChatInputCommandInteraction): Record<string, string> {
  const options: Record<string, string> = {};
  for (const option of interaction.options.data) if (typeof option.value === "string") options[option.name] = option.value.trim();
  return options;
}

const handleOf = (deps: EventDeps, interaction: Interaction, kind: Handle["kind"]): Handle => ({
  application: interaction.applicationId,
  token: interaction.token,
  at: deps.clock(),
  kind,
});

async function command(deps: EventDeps, core: SurfaceCore<DiscordClicked>, interaction: ChatInputCommandInteraction): Promise<void> {
  const ask = interaction.commandName === ASK;
  await interaction.deferReply(ask ? {} : { flags: MessageFlags.Ephemeral });
  const at = await spotOfInteraction(deps, interaction, handleOf(deps, interaction, ask ? "ask" : "command"));
  if (!at) {
    await interaction.editReply({
      content: "I can't tell which channel this came from, so I can't answer here.",
      allowedMentions: NO_PINGS,
    });
    return;
  }
  if (!ask) return core.command({ at, name: interaction.commandName, text: "", options: stringOptions(interaction) });
  const text = (interaction.options.getString(QUESTION_OPTION) ?? "").trim();
  const attachment = interaction.options.getAttachment(FILE_OPTION);
  const files = attachment ? discordFilesOf([attachment]) : [];
  await core.question({ at, text, receipt: interaction.id, ...(files.length > 0 ? { files } : {}) });
}

/** The click itself, answered once: with the modal, or with a private text. */
function pendingClick(interaction: ButtonInteraction, logger: Logger): PendingClick {
  const once = async (what: string, answer: () => Promise<unknown>): Promise<boolean> => {
    if (interaction.replied || interaction.deferred) return false;
    try {
      await answer();
      return true;
    } catch (error) {
      logger.warn({ err: error }, `could not answer a form's click with ${what}`);
      return false;
    }
  };
  return {
    showModal: (modal) => once("its form", () => interaction.showModal(modal as never)),
    reply: (text) => once("a note", () => interaction.reply({ content: text, flags: MessageFlags.Ephemeral, allowedMentions: NO_PINGS })),
  };
}

/** Answer <server>: not deferred, so the form can open (Discord allows that only as the click's first answer, within 3 s). */
async function formOpen(deps: EventDeps, core: SurfaceCore<DiscordClicked>, interaction: ButtonInteraction, formId: string): Promise<void> {
  const handle = handleOf(deps, interaction, "click");
  const at = await spotOfInteraction(deps, interaction, handle);
  if (!at) return;
  const pending = pendingClick(interaction, deps.logger);
  const clicked: DiscordClicked = { content: interaction.message.content, messageId: interaction.message.id, interaction: handle, pending };
  await core.form({ at, clicked, formId, action: "open" });
  // Whatever happened, the click gets an answer: an unanswered one shows "This interaction failed".
  if (!interaction.replied && !interaction.deferred) await interaction.deferUpdate().catch(() => undefined);
}

/** The form's modal was sent: answered privately (the problems, or that it went to the server). */
async function formSubmitted(deps: EventDeps, core: SurfaceCore<DiscordClicked>, interaction: ModalSubmitInteraction, formId: string) {
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const at = await spotOfInteraction(deps, interaction, handleOf(deps, interaction, "command"));
  if (!at) return;
  const fields = [...interaction.fields.fields.values()] as unknown as Parameters<typeof modalInputs>[0];
  await core.formSubmit({ at, formId, inputs: modalInputs(fields) });
}

async function click(deps: EventDeps, core: SurfaceCore<DiscordClicked>, interaction: ButtonInteraction): Promise<void> {
  const form = parseFormButton(interaction.customId);
  if (form?.action === "open") return formOpen(deps, core, interaction, form.formId);
  await interaction.deferUpdate();
  const handle = handleOf(deps, interaction, "click");
  const at = await spotOfInteraction(deps, interaction, handle);
  if (!at) return;
  const button = parseButton(interaction.customId);
  const clicked: DiscordClicked = {
    content: interaction.message.content,
    messageId: interaction.message.id,
    interaction: handle,
    ...(button?.kind === "decision" ? { approval: { runId: button.runId, callId: button.callId } } : {}),
  };
  if (form) return core.form({ at, clicked, formId: form.formId, action: form.action });
  return takeButton(core, { at, clicked }, button);
}

/** Never rejects: a failure is logged. */
export async function takeInteraction(deps: EventDeps, core: SurfaceCore<DiscordClicked>, interaction: Interaction): Promise<void> {
  try {
    if (interaction.isChatInputCommand()) await command(deps, core, interaction);
    else if (interaction.isButton()) await click(deps, core, interaction);
    else if (interaction.isModalSubmit()) {
      const formId = parseFormModalId(interaction.customId);
      if (formId) await formSubmitted(deps, core, interaction, formId);
    }
  } catch (error) {
    deps.logger.error({ err: error }, "handling a Discord interaction failed");
  }
}

/** A message for the bot (a question, or a command word), or a reply in a thread that may be. Never rejects. */
export async function takeMention(deps: EventDeps, core: SurfaceCore<DiscordClicked>, message: Message, botId: string): Promise<void> {
  const mention = isForBot(message, botId);
  if (!mention && !mayBeThreadReply(message, botId)) return;
  try {
    const { owner, ...place } = await placeIn(deps, message);
    // A reply in a thread: the bot's own (it started it on its answer), or one where it works (core/follow-ups.ts).
    if (!mention && place.channelKind !== "thread") return;
    const by: Someone = { ...personOf(message.author), roles: roleIdsOf(message.member) };
    const files = discordFilesOf(message.attachments.values(), { channel: message.channelId, message: message.id });
    const input = {
      ...(files.length > 0 ? { files } : {}),
      at: spotOf("discord", conversationAt({ ...place, message: message.id }), by),
      text: questionOf(message.content, botId, botRolesMentioned(message, botId)),
      receipt: message.id,
      sentOrder: message.id,
    };
    await (mention ? core.message(input) : core.followUp({ ...input, ...(owner === botId ? { botThread: true } : {}) }));
  } catch (error) {
    deps.logger.error({ err: error }, "handling a Discord message failed");
  }
}
