// Discord: on with a bot token and its application id.
import { area, optionalPart } from "./area.js";
import { httpUrl, idList, numericId, text, yesNo } from "./values.js";
import { variable } from "./variable.js";

export const DISCORD_TOKEN = variable("DISCORD_TOKEN", text(), {
  secret: true,
  meaning: "the bot token; with it the Discord surface starts",
});
export const DISCORD_APPLICATION_ID = variable("DISCORD_APPLICATION_ID", numericId("expects the numeric application id"), {
  meaning: "the application id (required with the token)",
});

export const discordArea = area({
  title: "Discord",
  about:
    "Set up the application first (see [Discord](discord.md)). Discord alone needs no Slack variables; it serves health, readiness and metrics on `PORT`.",
  variables: {
    token: DISCORD_TOKEN,
    applicationId: DISCORD_APPLICATION_ID,
    apiUrl: variable("DISCORD_API_URL", httpUrl(), {
      shownDefault: "Discord's",
      meaning: "REST base URL instead of Discord's (a proxy, or the tests' fake), without `/v10`; its origin may serve attachments too",
    }),
    guildId: variable("DISCORD_GUILD_ID", numericId("expects a numeric guild id"), {
      meaning: "register commands to this server only (`discord:register`)",
    }),
    approvers: variable("DISCORD_APPROVERS", idList(), {
      default: "",
      meaning: "user ids who may approve anyone's write actions",
    }),
    approverRole: variable("DISCORD_APPROVER_ROLE", numericId("expects a numeric role id"), {
      meaning: "a role id whose members may approve",
    }),
    /** The privileged Message Content intent: lets read_channel see other people's text. */
    messageContent: variable("DISCORD_MESSAGE_CONTENT", yesNo(), {
      default: "no",
      meaning:
        "`yes` asks for the privileged Message Content intent (enable it in the portal first) so `read_channel` sees other people's text, and a reply without a mention in the bot's answer thread reaches it (without the intent Discord sends such a reply empty)",
    }),
  },
  /** Off (absent) without a token; the rules refuse a token without its application id. */
  shape: ({ token, applicationId, messageContent, ...discord }) =>
    optionalPart(
      "discord",
      // Optional in the type: a surface built without the intent setting reads it as off.
      token && applicationId ? { token, applicationId, ...discord, ...optionalPart("messageContent", messageContent) } : undefined,
    ),
});
