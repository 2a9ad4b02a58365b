// Who can see a Slack conversation, as Slack says now: a public channel of the asking workspace is
// anyone's; a private channel, a DM or a group DM is its members' (conversations.members, read
// page by page up to a bound). Anything Slack does not answer (an error, a missing scope, a
// member list longer than the bound, a channel shared from another workspace) is "unknown".
import type { TaskOrigin } from "../../contracts/types.js";
import type { Audience, AudienceReader } from "../../runs/api/audiences.js";
import { cachedAudiences } from "../core/audience-cache.js";
import { ChannelInfo, describeSlackError, isPublicIn, readPages } from "./slack-api.js";
import type { SlackClients } from "./slack-clients.js";
import { placeOf, workspaceOfOrigin } from "./slack-place.js";

/** Pages of 1,000 members read at most: a larger private channel is "unknown", so an answer quoting it is held. */
const MAX_MEMBER_PAGES = 10;

async function membersOf(clients: SlackClients, origin: TaskOrigin, channel: string): Promise<Audience> {
  const workspace = workspaceOfOrigin(origin);
  if (!workspace) return { kind: "unknown", why: "not a Slack workspace" };
  const client = clients.of(workspace);
  const team = placeOf(origin)?.team ?? origin.scope?.workspace;
  const { channel: info } = ChannelInfo.parse(await client.conversations.info({ channel }));
  if (isPublicIn(info, team)) return { kind: "everyone" };
  const members = new Set<string>();
  const whole = await readPages(
    (page) => client.conversations.members({ channel, limit: 1000, ...page }),
    (page) => {
      for (const member of page.members) members.add(member);
      return undefined;
    },
    MAX_MEMBER_PAGES,
  );
  return whole ? { kind: "members", members } : { kind: "unknown", why: `more than ${MAX_MEMBER_PAGES * 1000} members` };
}

export function slackAudiences(clients: SlackClients): AudienceReader {
  const reader: AudienceReader = {
    destinationOf: (origin) => placeOf(origin)?.channel,
    audienceOf: (origin, channel) =>
      membersOf(clients, origin, channel).catch((error: unknown): Audience => ({ kind: "unknown", why: describeSlackError(error) })),
  };
  return cachedAudiences(reader, (origin, channel) => `${workspaceOfOrigin(origin)?.team ?? ""}/${channel}`);
}
