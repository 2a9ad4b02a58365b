// Slack's app_context_changed (sent with the agent view on): what the person looks at while the
// bot's container is open, most relevant first. The first entity, in words the model can act on
// (a channel as <#C…>, which read_channel reads); an empty context clears it. Pure; untrusted.
import { z } from "zod";
import type { ViewingInput } from "../core/inbound.js";

const Entity = z.object({ type: z.string(), value: z.unknown(), team_id: z.string().optional() });
const Body = z.object({
  team_id: z.string().min(1).optional(),
  event: z.object({
    type: z.literal("app_context_changed"),
    user: z.string().min(1),
    context: z.object({ entities: z.array(Entity).max(100).optional() }).default({}),
  }),
});
const SLACK_ID = /^[A-Z0-9]{2,30}$/;
const SLACK_TS = /^\d+\.\d+$/;
const MessageContext = z.object({ channel_id: z.string().regex(SLACK_ID), message_ts: z.string().regex(SLACK_TS) });

/** Pure: the view in words, or undefined for an entity the bot does not know. */
function described(entity: z.infer<typeof Entity>): string | undefined {
  const id = typeof entity.value === "string" && SLACK_ID.test(entity.value) ? entity.value : undefined;
  switch (entity.type) {
    case "slack#/types/channel_id":
      return id && `the channel <#${id}>`;
    case "slack#/types/canvas_id":
      return id && `the canvas ${id}`;
    case "slack#/types/list_id":
      return id && `the list ${id}`;
    case "slack#/types/message_context": {
      const message = MessageContext.safeParse(entity.value);
      return message.success ? `a message in <#${message.data.channel_id}> (ts ${message.data.message_ts})` : undefined;
    }
    default:
      return undefined;
  }
}

/** Undefined for a malformed event. */
export function viewingOf(body: unknown, fallbackTeam?: string): ViewingInput | undefined {
  const parsed = Body.safeParse(body);
  if (!parsed.success) return undefined;
  const { event, team_id } = parsed.data;
  const team = team_id ?? fallbackTeam;
  const viewing = (event.context.entities ?? []).map(described).find((text) => text !== undefined);
  return { person: { id: event.user }, ...(team ? { workspace: team } : {}), ...(viewing ? { viewing } : {}) };
}
