// 👍 / 👎 buttons under each answer, their clicks (persistent handler, any process), and
// `/feedback` for approvers: the totals and the last 20 votes with links to their messages.
// The custom id names the run and how it ended; the rest comes from where the click happened.
import { ButtonStyle, ComponentType, MessageFlags, type ButtonInteraction, type ChatInputCommandInteraction } from "discord.js";
import type { GuardStop } from "../../agent/types.js";
import type { FeedbackEntry, FeedbackTotals } from "../../memory/feedback.js";
import { isApprover, roleIdsOf } from "./approval-clicks.js";
import type { ButtonRow } from "./approval-buttons.js";
import { conversationKey, personOf } from "./conversation.js";
import { BAD_BUTTON_TEXT, NO_PINGS } from "./messages.js";
import type { AdapterContext } from "./run-view.js";

const PREFIX = "fb:";
const CUSTOM_ID = /^fb:([ud]):([^:\s]{1,32}):([a-z_]{1,32})$/;
export const FEEDBACK_SHOWN = 20;
const THANKS = "Thanks for the feedback.";

export const isFeedbackCustomId = (customId: string) => customId.startsWith(PREFIX);

export function feedbackButtons(runId: string, stop: GuardStop | undefined): ButtonRow[] {
  const guard = stop?.guard ?? "none";
  return [
    {
      type: ComponentType.ActionRow,
      components: [
        { type: ComponentType.Button, style: ButtonStyle.Secondary, emoji: { name: "👍" }, custom_id: `${PREFIX}u:${runId}:${guard}` },
        { type: ComponentType.Button, style: ButtonStyle.Secondary, emoji: { name: "👎" }, custom_id: `${PREFIX}d:${runId}:${guard}` },
      ],
    },
  ];
}

export function parseFeedbackCustomId(customId: string): { rating: "up" | "down"; runId: string; guard: string } | undefined {
  const match = CUSTOM_ID.exec(customId);
  return match ? { rating: match[1] === "u" ? "up" : "down", runId: match[2]!, guard: match[3]! } : undefined;
}

export async function handleFeedbackClick(context: AdapterContext, interaction: ButtonInteraction): Promise<void> {
  const button = parseFeedbackCustomId(interaction.customId);
  if (!button) {
    await interaction.reply({ content: BAD_BUTTON_TEXT, flags: MessageFlags.Ephemeral });
    return;
  }
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  try {
    await context.service.feedback.record({
      runId: button.runId,
      surface: "discord",
      conversationKey: conversationKey(interaction.guildId, interaction.channelId),
      person: personOf(interaction.user),
      rating: button.rating,
      guard: button.guard,
      link: `https://discord.com/channels/${interaction.guildId ?? "@me"}/${interaction.channelId}/${interaction.message.id}`,
      at: context.clock(),
    });
    await interaction.editReply({ content: THANKS });
  } catch (error) {
    context.logger.error({ err: error, runId: button.runId }, "could not record feedback");
    await interaction.editReply({ content: "I could not record that just now; please try again in a moment." }).catch(() => undefined);
  }
}

function entryLine(entry: FeedbackEntry): string {
  const how = entry.guard === "none" ? "answered" : `stopped (${entry.guard})`;
  const comment = entry.comment ? ` — “${entry.comment.slice(0, 150)}”` : "";
  return `- ${entry.rating === "up" ? "👍" : "👎"} <@${entry.person.id}> · ${entry.link ?? entry.conversationKey} · ${how}${comment}`;
}

/** Pure: the listing, within one Discord message (entries that do not fit are left out, newest kept). */
export function feedbackText(totals: FeedbackTotals, entries: readonly FeedbackEntry[], maxChars = 2_000): string {
  const header = `Feedback so far: 👍 ${totals.up} · 👎 ${totals.down}.`;
  const lines: string[] = [];
  for (const line of entries.map(entryLine)) {
    if ([header, ...lines, line].join("\n").length > maxChars) break;
    lines.push(line);
  }
  return lines.length === 0 ? `${header} No votes yet.` : [header, ...lines].join("\n");
}

export async function feedbackCommand(context: AdapterContext, interaction: ChatInputCommandInteraction): Promise<void> {
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  if (!isApprover(context.deciders, interaction.user.id, roleIdsOf(interaction.member))) {
    await interaction.editReply({ content: "Only approvers can see the feedback." });
    return;
  }
  try {
    const [totals, entries] = await Promise.all([context.service.feedback.totals(), context.service.feedback.recent(FEEDBACK_SHOWN)]);
    await interaction.editReply({ content: feedbackText(totals, entries), allowedMentions: NO_PINGS });
  } catch (error) {
    context.logger.error({ err: error }, "could not read the feedback");
    await interaction.editReply({ content: "I could not read the feedback just now (my storage did not answer)." });
  }
}
