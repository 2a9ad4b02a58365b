// Discord's MESSAGE_UPDATE and MESSAGE_DELETE as the core's edit and deletion. An update is an
// edit only when Discord stamped it edited (an embed it added to a link is not); the bot's own
// messages, other bots' and webhooks' are nothing to it. A deletion names only the message (Discord
// does not say who deleted it, nor, for a message not cached, whose it was): the runs find whether
// it was a question. Messages not in discord.js's cache arrive as partials (Partials.Message).
import type { Message, PartialMessage } from "discord.js";
import { spotOf, type SurfaceCore } from "../core/inbound.js";
import { botRolesMentioned, placeIn, questionOf, roleIdsOf, type DiscordClicked, type EventDeps } from "./discord-events.js";
import { conversationAt, personOf } from "./discord-place.js";

/** Discord's epoch (2015-01-01): a snowflake's top bits are the milliseconds since it. */
const DISCORD_EPOCH_MS = 1_420_070_400_000n;

/** Pure: the snowflake of an instant, so an edit takes its place among the messages (sent-order.ts) by when it was made. */
export function snowflakeAt(ms: number): string {
  return ((BigInt(Math.floor(ms)) - DISCORD_EPOCH_MS) << 22n).toString();
}

const mentionsBot = (message: Pick<Message, "mentions">, botId: string) =>
  message.mentions.users.has(botId) || botRolesMentioned(message, botId).length > 0;

/** An edited message: to the core when a person edited it. Never rejects. */
export async function takeEdit(
  deps: EventDeps,
  core: SurfaceCore<DiscordClicked>,
  before: Message | PartialMessage,
  message: Message | PartialMessage,
  botId: string,
): Promise<void> {
  try {
    if (message.partial) message = await message.fetch();
    if (message.author.bot || message.webhookId || message.system || message.editedTimestamp === null) return;
    const place = await placeIn(deps, message);
    const botRoles = botRolesMentioned(message, botId);
    await core.edit({
      at: spotOf("discord", conversationAt({ ...place, message: message.id }), {
        ...personOf(message.author),
        roles: roleIdsOf(message.member),
      }),
      receipt: message.id,
      editReceipt: `${message.id}:edited:${message.editedTimestamp}`,
      text: questionOf(message.content, botId, botRoles),
      // A message discord.js did not have before (a partial) may have mentioned the bot already: no new mention then.
      addsMention: mentionsBot(message, botId) && !before.partial && !mentionsBot(before, botId),
      sentOrder: snowflakeAt(message.editedTimestamp),
    });
  } catch (error) {
    deps.logger.error({ err: error }, "handling an edited Discord message failed");
  }
}

/** A deleted message: to the core unless it is known to be a bot's. Never rejects. */
export async function takeDeletion(deps: EventDeps, core: SurfaceCore<DiscordClicked>, message: Message | PartialMessage): Promise<void> {
  try {
    if (message.author?.bot || message.webhookId) return;
    await core.deletion({ receipt: message.id });
  } catch (error) {
    deps.logger.error({ err: error }, "handling a deleted Discord message failed");
  }
}
