// The Block Kit approval message: what the agent wants to run, with Approve / Deny buttons
// whose value names the run and the call. After a decision (or expiry) the same message is
// shown without buttons and with a line saying what happened. Pure.
import { z } from "zod";
import type { types } from "@slack/bolt";
import type { PendingApproval } from "../../contracts/types.js";
import type { Deciders } from "../../governance/authority.js";
import type { SettledCard } from "../core/cards.js";
import { originNotes } from "../core/origin-lines.js";
import { decidersText, decisionLine, EXPIRED_LINE } from "../core/texts.js";
import { jsonValue } from "./slack-api.js";
import type { MessageRef, SlackClicked } from "./slack-refs.js";
import { codeBlock, escapeSlackText, neutraliseMentions, slackFormat } from "./slack-text.js";

export const APPROVE_ACTION = "agent_approval_approve";
export const DENY_ACTION = "agent_approval_deny";
const APPROVAL_BLOCK_ID = "agent_approval";
const ARGS_MAX_CHARS = 2_500;
/** Block Kit's limit for a section's text. */
const SECTION_TEXT_MAX_CHARS = 3_000;
const MAX_KEPT_BLOCKS = 45;

type Block = types.KnownBlock | types.Block;

const ApprovalValue = z.object({ r: z.string().min(1).max(200), c: z.string().min(1).max(200) });

/** The call a button names. */
type ApprovalRef = Pick<PendingApproval, "runId" | "callId">;

export function encodeApprovalValue(ref: ApprovalRef): string {
  return JSON.stringify({ r: ref.runId, c: ref.callId });
}

/** The button value comes back from Slack: untrusted. */
export function decodeApprovalValue(value: unknown): ApprovalRef | undefined {
  const parsed = jsonValue(ApprovalValue, value);
  return parsed && { runId: parsed.r, callId: parsed.c };
}

/** Escaping can lengthen the text several times over, so the cut is checked after it. */
function argumentsText(args: unknown): string {
  const json = neutraliseMentions(JSON.stringify(args, null, 2) ?? String(args));
  let keep = Math.min(json.length, ARGS_MAX_CHARS);
  for (;;) {
    const block = codeBlock(keep < json.length ? `${json.slice(0, keep)}\n… (${json.length - keep} more characters)` : json);
    if (block.length <= SECTION_TEXT_MAX_CHARS) return block;
    keep = Math.floor((keep * SECTION_TEXT_MAX_CHARS) / block.length) - 1;
  }
}

export function approvalText(pending: PendingApproval): string {
  const warning = pending.provenance ? " Some of it came from content someone else wrote." : "";
  return `Approval needed: the agent wants to run ${pending.tool}.${warning}`;
}

/** The warning and the origin lines in one section: lines that would not fit its limit once escaped are left out. */
function originBlocks(pending: PendingApproval): Block[] {
  const notes = originNotes(pending);
  if (!notes) return [];
  const lines = notes.lines.map((line) => `• ${slackFormat.plain(line)}`);
  const text = (count: number) => [`:warning: *${slackFormat.plain(notes.warning)}*`, ...lines.slice(0, count)].join("\n");
  let count = lines.length;
  while (count > 0 && text(count).length > SECTION_TEXT_MAX_CHARS) count--;
  return [{ type: "section", text: { type: "mrkdwn", text: text(count) } }];
}

function describedBlocks(pending: PendingApproval, deciders: Deciders): Block[] {
  const expires = Math.floor(pending.expiresAt / 1000);
  const fallback = `${new Date(pending.expiresAt).toISOString().replace("T", " ").slice(0, 16)} UTC`;
  return [
    {
      type: "section",
      text: { type: "mrkdwn", text: `*Approval needed:* the agent wants to run \`${escapeSlackText(pending.tool)}\` with` },
    },
    ...(pending.source
      ? [{ type: "context" as const, elements: [{ type: "plain_text" as const, text: pending.source.slice(0, 300) }] }]
      : []),
    ...originBlocks(pending),
    { type: "section", text: { type: "mrkdwn", text: argumentsText(pending.args) } },
    {
      type: "context",
      elements: [
        {
          type: "mrkdwn",
          text: `${decidersText(pending.requester, deciders, slackFormat)} Expires <!date^${expires}^{date_short_pretty} {time}|${fallback}>.`,
        },
      ],
    },
  ];
}

export function approvalBlocks(pending: PendingApproval, deciders: Deciders): Block[] {
  const value = encodeApprovalValue(pending);
  return [
    ...describedBlocks(pending, deciders),
    {
      type: "actions",
      block_id: APPROVAL_BLOCK_ID,
      elements: [
        { type: "button", action_id: APPROVE_ACTION, style: "primary", text: { type: "plain_text", text: "Approve" }, value },
        { type: "button", action_id: DENY_ACTION, style: "danger", text: { type: "plain_text", text: "Deny" }, value },
      ],
    },
  ];
}

/** The line a settled approval message ends with. */
function settledNote(card: SettledCard): string {
  if (card.kind === "expired") return `:hourglass: ${EXPIRED_LINE}`;
  return `${card.decision === "approve" ? ":white_check_mark:" : ":no_entry_sign:"} ${decisionLine(card.decision, card.by, slackFormat)}`;
}

function note(text: string): Block {
  return { type: "context", elements: [{ type: "mrkdwn", text }] };
}

const LooseBlock = z.looseObject({ type: z.string() });

/** The clicked message's blocks (untrusted) without buttons, plus a line saying what happened. */
export function settledBlocks(clickedBlocks: unknown, text: string): Block[] {
  const parsed = z.array(LooseBlock).safeParse(clickedBlocks);
  const kept = parsed.success ? parsed.data.filter((block) => block.type !== "actions").slice(0, MAX_KEPT_BLOCKS) : [];
  return [...(kept as Block[]), note(text)];
}

/** The approval message rebuilt from the pending call, without buttons (expiry without a click). */
export function settledFromPending(pending: PendingApproval, deciders: Deciders, text: string): Block[] {
  return [...describedBlocks(pending, deciders), note(text)];
}

/** The chat.update that settles an approval message: the clicked one (its blocks kept), or the one posted (rebuilt on expiry). */
export function settledUpdate(message: { readonly clicked: SlackClicked } | { readonly ref: MessageRef }, card: SettledCard) {
  const text = settledNote(card);
  if ("clicked" in message) {
    const { channel, ts, blocks } = message.clicked;
    return { channel, ts, text, blocks: settledBlocks(blocks, text) };
  }
  const asked = card.kind === "expired" ? card.approval : undefined;
  const blocks = asked ? settledFromPending(asked.pending, asked.deciders, text) : settledBlocks(undefined, text);
  const { channel, ts } = message.ref;
  return { channel, ts, text, blocks };
}
