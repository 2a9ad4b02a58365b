// What schedules ask of Slack: a person's timezone (users.info `tz`, which needs users:read), whether
// a schedule's owner is still in the workspace at fire time, and the root message a slot's thread
// starts with. Slack's answers are untrusted: checked with zod; a failure reads as "unknown".
import type { webApi } from "@slack/bolt";
import { z } from "zod";
import type { Person, TaskOrigin } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import type { Presence } from "../../schedules/ports.js";
import { slackErrorCode } from "./slack-api.js";
import { conversationAt, isDirectChannel, placeOf } from "./slack-place.js";
import type { SlackPosts } from "./slack-posts.js";

const UserInfo = z.object({
  user: z.object({ tz: z.string().min(1).max(100).optional(), deleted: z.boolean().optional() }),
});

const ChannelInfo = z.object({ channel: z.object({ is_member: z.boolean().optional() }) });
const OWNER_LEFT: Presence = { kind: "gone", reason: "its owner left the workspace" };
const BOT_REMOVED: Presence = { kind: "gone", reason: "the bot is no longer in its channel" };

/** `clientOf` and `postsOf` answer with the origin's workspace's own. */
export function createSlackSchedulePorts(
  clientOf: (origin: TaskOrigin) => webApi.WebClient,
  postsOf: (origin: TaskOrigin) => SlackPosts,
  logger: Logger,
) {
  const userInfo = async (person: Person, origin: TaskOrigin) =>
    UserInfo.parse(await clientOf(origin).users.info({ user: person.id })).user;

  return {
    async timeZoneOf(person: Person, origin: TaskOrigin): Promise<string | undefined> {
      try {
        return (await userInfo(person, origin)).tz;
      } catch (error) {
        logger.info({ err: error, user: person.id }, "could not read a person's timezone from Slack");
        return undefined;
      }
    },

    /** The owner first, then (outside DMs) the bot's membership of the channel; what Slack can't say counts as present. */
    async presenceOf(owner: Person, origin: TaskOrigin): Promise<Presence> {
      try {
        if ((await userInfo(owner, origin)).deleted) return OWNER_LEFT;
      } catch (error) {
        if (slackErrorCode(error) === "user_not_found") return OWNER_LEFT;
      }
      const place = placeOf(origin);
      if (!place || isDirectChannel(place.channel)) return { kind: "present" };
      try {
        const { channel } = ChannelInfo.parse(await clientOf(origin).conversations.info({ channel: place.channel }));
        return channel.is_member === false ? BOT_REMOVED : { kind: "present" };
      } catch (error) {
        return slackErrorCode(error) === "channel_not_found" ? BOT_REMOVED : { kind: "present" };
      }
    },

    async openSlotThread(origin: TaskOrigin, heading: string): Promise<Readonly<Record<string, string>> | undefined> {
      const place = placeOf(origin);
      if (!place) return undefined;
      const failure = { level: "warn" as const, message: "could not post a schedule slot's first message", fields: {} };
      const ts = await postsOf(origin).post({ channel: place.channel }, { text: heading }, failure);
      if (ts === undefined) return undefined;
      const { requesterTeam } = place;
      return conversationAt({
        team: place.team,
        channel: place.channel,
        traceThreadTs: ts,
        replyThreadTs: ts,
        ...(requesterTeam ? { requesterTeam } : {}),
        ...(place.enterprise ? { enterprise: place.enterprise } : {}),
        ...(place.orgInstall ? { orgInstall: place.orgInstall } : {}),
      }).place;
    },
  };
}
