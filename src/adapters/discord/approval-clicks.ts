// Approve / Deny clicks, from the persistent interactionCreate handler (no collectors, so
// a click works after a restart). The click is acknowledged at once (deferUpdate); the
// service applies the decision at most once; then the approval message shows who decided
// what with its buttons disabled, and the rest of the run answers through this click.
import { MessageFlags, type ButtonInteraction, type GuildMember, type APIInteractionGuildMember } from "discord.js";
import type { Decision, Person } from "../../agent/types.js";
import { approvalButtons, parseApprovalCustomId, type ApprovalButton } from "./approval-buttons.js";
import { personOf } from "./conversation.js";
import {
  alreadyDecidedText,
  BAD_BUTTON_TEXT,
  decisionLine,
  EXPIRED_LINE,
  NO_PINGS,
  notAllowedText,
  withClosingLine,
  type Deciders,
} from "./messages.js";
import type { AdapterContext } from "./run-view.js";

export function isApprover(deciders: Deciders, userId: string, roleIds: readonly string[]): boolean {
  return deciders.approvers.includes(userId) || (deciders.approverRole !== undefined && roleIds.includes(deciders.approverRole));
}

export function roleIdsOf(member: GuildMember | APIInteractionGuildMember | null): readonly string[] {
  if (!member) return [];
  return Array.isArray(member.roles) ? member.roles : [...member.roles.cache.keys()];
}

export async function handleApprovalClick(context: AdapterContext, interaction: ButtonInteraction): Promise<void> {
  const button = parseApprovalCustomId(interaction.customId);
  if (!button) {
    await interaction.reply({ content: BAD_BUTTON_TEXT, flags: MessageFlags.Ephemeral });
    return;
  }
  await interaction.deferUpdate();
  const decidedBy = personOf(interaction.user);
  const ephemeral = async (content: string) =>
    void (await interaction.followUp({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_PINGS }));
  try {
    await decide(context, interaction, button, decidedBy, ephemeral);
  } catch (error) {
    context.logger.error({ err: error, runId: button.runId }, "handling an approval click failed");
    await ephemeral(
      "Something went wrong on my side while handling your click; the details are in the bot's log. If the request still shows its buttons, try again.",
    ).catch(() => undefined);
  }
}

async function decide(
  context: AdapterContext,
  interaction: ButtonInteraction,
  button: ApprovalButton,
  decidedBy: Person,
  ephemeral: (content: string) => Promise<void>,
): Promise<void> {
  const original = interaction.message.content;
  /** Never throws: the run's answer matters more than this edit. */
  const closeApproval = async (line: string) => {
    await interaction
      .editReply({
        content: withClosingLine(original, line),
        components: approvalButtons(button.runId, button.callId, { disabled: true }),
        allowedMentions: NO_PINGS,
      })
      .catch((error: unknown) => context.logger.warn({ err: error, runId: button.runId }, "could not update the approval message"));
  };
  let decisionShown: Promise<void> | undefined;
  const showDecision = (decision: Decision, by: Person) => (decisionShown ??= closeApproval(decisionLine(decision, by)));

  // The rest of the run answers in follow-ups of this click (the /ask's token may be near its 15 minutes), from whichever process runs it.
  const replyPlace = {
    application: interaction.applicationId,
    interaction_token: interaction.token,
    interaction_at: String(context.clock()),
    reply_via: "followup",
  };
  const result = await context.service.decide(
    {
      runId: button.runId,
      callId: button.callId,
      decision: button.decision,
      decidedBy,
      isApprover: isApprover(context.deciders, decidedBy.id, roleIdsOf(interaction.member)),
      replyPlace,
    },
    () => {},
  );
  switch (result.kind) {
    case "resumed":
      await showDecision(result.decision, decidedBy);
      if (result.note) await ephemeral(result.note);
      return;
    case "expired":
      await closeApproval(EXPIRED_LINE);
      return;
    case "not_allowed":
      await ephemeral(notAllowedText(result.requester, context.deciders));
      return;
    case "already_decided":
      await ephemeral(alreadyDecidedText(result.decision, result.decidedBy));
      await showDecision(result.decision, result.decidedBy);
      return;
    case "unknown":
      await ephemeral(result.message);
      return;
  }
}
