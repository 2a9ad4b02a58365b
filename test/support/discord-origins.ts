// A Discord request's origin as the Discord surface writes it at intake (place codec and scope).
import type { Person, TaskOrigin } from "../../src/contracts/types.js";
import { spotOf } from "../../src/adapters/core/inbound.js";
import { conversationAt, type DiscordPlace } from "../../src/adapters/discord/discord-place.js";

export function discordAsked(
  requester: Person,
  place: Partial<DiscordPlace> & { readonly channel: string },
  roles: readonly string[] = [],
): TaskOrigin {
  return spotOf("discord", conversationAt({ guild: null, channelKind: "text", ...place }), { ...requester, roles }).origin;
}
