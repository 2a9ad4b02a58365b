// A Slack request's origin as the Slack surface writes it at intake (place codec and scope).
import type { TaskOrigin } from "../../src/contracts/types.js";
import { spotOf } from "../../src/adapters/core/inbound.js";
import { conversationAt } from "../../src/adapters/slack/slack-place.js";
import { TEAM_ID } from "./fake-slack-types.js";

export function slackAsked(user: string, channel: string, options: { ts?: string; requesterTeam?: string } = {}): TaskOrigin {
  const ts = options.ts ?? "1700000000.000100";
  const conversation = conversationAt({
    team: TEAM_ID,
    channel,
    traceThreadTs: ts,
    replyThreadTs: ts,
    ...(options.requesterTeam ? { requesterTeam: options.requesterTeam } : {}),
  });
  return spotOf("slack", conversation, { id: user, roles: [] }).origin;
}
