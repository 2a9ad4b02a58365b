// What schedules ask of Discord: whether a schedule's owner is still in the server at fire time
// (with their roles there, for the access lists), and the root message a slot's thread starts
// with. Discord's answers are untrusted: checked with zod; a failure reads as "unknown".
import { DiscordAPIError, type REST, Routes } from "discord.js";
import { z } from "zod";
import type { Person, TaskOrigin } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import type { Presence } from "../../schedules/ports.js";
import type { ChannelApi } from "./channel-api.js";
import { conversationAt, placeOf } from "./discord-place.js";

const Member = z.object({ roles: z.array(z.string()).max(500) });
/** Discord's codes for a server the bot is not in (any more) and a member who is not in it. */
const UNKNOWN_GUILD = 10004;
const UNKNOWN_MEMBER = 10007;

export function createDiscordSchedulePorts(rest: REST, api: ChannelApi, logger: Logger) {
  return {
    async presenceOf(owner: Person, origin: TaskOrigin): Promise<Presence> {
      const guild = placeOf(origin)?.guild;
      if (!guild) return { kind: "present" };
      try {
        return { kind: "present", roles: Member.parse(await rest.get(Routes.guildMember(guild, owner.id))).roles };
      } catch (error) {
        if (error instanceof DiscordAPIError && error.code === UNKNOWN_MEMBER) return { kind: "gone", reason: "its owner left the server" };
        if (error instanceof DiscordAPIError && error.code === UNKNOWN_GUILD)
          return { kind: "gone", reason: "the bot is no longer in the server" };
        logger.info({ err: error, user: owner.id }, "could not tell whether a schedule's owner is still in the server");
        return { kind: "present" };
      }
    },

    async openSlotThread(origin: TaskOrigin, heading: string): Promise<Readonly<Record<string, string>> | undefined> {
      const place = placeOf(origin);
      if (!place) return undefined;
      try {
        const root = await api.send(place.channel, { content: heading });
        const { interaction: _asked, message: _made, ...where } = place;
        return conversationAt({ ...where, message: root.messageId }).place;
      } catch (error) {
        logger.warn({ err: error, channel: place.channel }, "could not post a schedule slot's first message");
        return undefined;
      }
    },
  };
}
