// Slack's message events that change an earlier message: `message_changed` (its `message` as it
// reads now, `previous_message` as it read, `edited` with who and when) and `message_deleted`
// (`deleted_ts`, `previous_message`). Turned into the core's edit or deletion; the bot's own
// messages, other bots', and a change that leaves the text as it was (an unfurl, Slack adding a
// language tag) are nothing to the bot. Pure; the event is untrusted and checked with zod.
import { z } from "zod";
import type { Logger } from "../../logger.js";
import { spotOf, type DeletionInput, type EditInput, type SurfaceCore } from "../core/inbound.js";
import { conversationOfMessage, stripMention } from "./incoming-message.js";
import type { WorkspaceRef } from "./install/workspace-ref.js";

const SLACK_TS = /^\d+\.\d+$/;

const Written = z.object({
  user: z.string().min(1).optional(),
  bot_id: z.string().optional(),
  text: z.string().default(""),
  ts: z.string().regex(SLACK_TS),
  thread_ts: z.string().regex(SLACK_TS).optional(),
  team: z.string().min(1).optional(),
  user_team: z.string().min(1).optional(),
  edited: z.object({ ts: z.string().regex(SLACK_TS).optional() }).optional(),
});

const Changed = z.object({
  team_id: z.string().min(1).optional(),
  enterprise_id: z.string().min(1).nullish(),
  event: z.object({
    type: z.literal("message"),
    subtype: z.literal("message_changed"),
    channel: z.string().min(1),
    ts: z.string().regex(SLACK_TS),
    message: Written,
    previous_message: Written.partial().optional(),
  }),
});

const Deleted = z.object({
  event: z.object({
    type: z.literal("message"),
    subtype: z.literal("message_deleted"),
    channel: z.string().min(1),
    deleted_ts: z.string().regex(SLACK_TS),
    previous_message: Written.partial().optional(),
  }),
});

export type MessageChange =
  | { readonly kind: "ignore"; readonly reason: string }
  | { readonly kind: "edit"; readonly edit: EditInput }
  | { readonly kind: "deletion"; readonly deletion: DeletionInput };

const CHANGE_SUBTYPES = new Set(["message_changed", "message_deleted"]);

/**
 * Undefined when the event is no change of an earlier message (a new message, another subtype).
 * `workspace` (Bolt's context) keys an edit's conversation as its message was keyed.
 */
export function changeOf(
  body: unknown,
  botUserId: string | undefined,
  fallbackTeam?: string,
  workspace?: WorkspaceRef,
): MessageChange | undefined {
  const subtype = (body as { event?: { subtype?: unknown } } | undefined)?.event?.subtype;
  if (typeof subtype !== "string" || !CHANGE_SUBTYPES.has(subtype)) return undefined;
  return subtype === "message_changed" ? editOf(body, botUserId, fallbackTeam, workspace) : deletionOf(body, botUserId);
}

const byBot = (written: { readonly bot_id?: string | undefined; readonly user?: string | undefined }, botUserId: string | undefined) =>
  written.bot_id !== undefined || (botUserId !== undefined && written.user === botUserId);

function editOf(body: unknown, botUserId: string | undefined, fallbackTeam?: string, workspace?: WorkspaceRef): MessageChange {
  const parsed = Changed.safeParse(body);
  if (!parsed.success) return { kind: "ignore", reason: `malformed message_changed: ${parsed.error.issues[0]?.message ?? "invalid"}` };
  const { event, team_id, enterprise_id } = parsed.data;
  const { message } = event;
  if (byBot(message, botUserId)) return { kind: "ignore", reason: "a bot's message changed" };
  if (message.user === undefined) return { kind: "ignore", reason: "no author" };
  if (event.previous_message?.text === message.text) return { kind: "ignore", reason: "the text is unchanged" };
  const enterprise = enterprise_id ?? workspace?.enterprise;
  const team = team_id ?? message.team ?? fallbackTeam ?? enterprise;
  if (team === undefined) return { kind: "ignore", reason: "no team id" };
  const conversation = conversationOfMessage(team, event.channel, message, { enterprise, orgInstall: workspace?.orgInstall });
  const editedAt = message.edited?.ts ?? event.ts;
  const mentions = (text: string) => botUserId !== undefined && new RegExp(`<@${botUserId}(\\|[^>]*)?>`).test(text);
  const addsMention = mentions(message.text) && !mentions(event.previous_message?.text ?? "");
  return {
    kind: "edit",
    edit: {
      at: spotOf("slack", conversation, { id: message.user, roles: [] }),
      receipt: `${event.channel}:${message.ts}`,
      editReceipt: `${event.channel}:${message.ts}:edited:${editedAt}`,
      text: stripMention(message.text, botUserId),
      addsMention,
      sentOrder: editedAt,
    },
  };
}

function deletionOf(body: unknown, botUserId: string | undefined): MessageChange {
  const parsed = Deleted.safeParse(body);
  if (!parsed.success) return { kind: "ignore", reason: `malformed message_deleted: ${parsed.error.issues[0]?.message ?? "invalid"}` };
  const { event } = parsed.data;
  if (event.previous_message && byBot(event.previous_message, botUserId)) return { kind: "ignore", reason: "a bot's message deleted" };
  return { kind: "deletion", deletion: { receipt: `${event.channel}:${event.deleted_ts}` } };
}

/** Hands a change to the core: the ack waits for it, as for a message. */
export async function takeChange(core: SurfaceCore<unknown>, change: MessageChange, logger: Logger): Promise<void> {
  if (change.kind === "ignore") return void logger.debug({ reason: change.reason }, "change ignored");
  await (change.kind === "edit" ? core.edit(change.edit) : core.deletion(change.deletion));
}
