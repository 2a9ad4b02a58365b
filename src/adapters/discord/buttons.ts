// The bot's buttons and their custom ids: Approve / Deny (`appr:a:<runId>:<callId>`), Stop
// (`stop:<runId>`), 👍 / 👎 (`fb:u:<runId>:<guard>`) and a held answer's choices (`held:p:<runId>`). An id names what it is about and nothing
// else, so a click works on any process and after a restart: the state lives in the store.
// Discord caps custom ids at 100 characters; run ids are at most 32 characters (the runner's
// are 24) and call ids at most 40, so ids stay under 90. A link button (a Connect link, a
// server's page) has a url and no id: Discord opens it and sends the bot nothing.
import {
  ButtonStyle,
  ComponentType,
  type APIActionRowComponent,
  type APIButtonComponentWithCustomId,
  type APIButtonComponentWithURL,
} from "discord.js";
import type { Decision, GuardStop } from "../../contracts/types.js";
import { guardOf, type Button } from "../core/inbound.js";

export interface ApprovalButton {
  readonly decision: Decision;
  readonly runId: string;
  readonly callId: string;
}

const MAX_CUSTOM_ID = 100;
/** Discord's limits on a link button's url and on a button's label. */
const MAX_LINK_URL = 512;
const MAX_LABEL = 80;
const APPROVAL_ID = /^appr:([ad]):([^:\s]{1,32}):(\S{1,40})$/;
const STOP_ID = /^stop:([^:\s]{1,32})$/;
const FEEDBACK_ID = /^fb:([ud]):([^:\s]{1,32}):([a-z_]{1,32})$/;
const HELD_ID = /^held:([pvd]):([^:\s]{1,32})$/;
const HELD_CHOICES = { p: "post", v: "private", d: "drop" } as const;

export function approvalCustomId(button: ApprovalButton): string {
  const id = `appr:${button.decision === "approve" ? "a" : "d"}:${button.runId}:${button.callId}`;
  if (id.length > MAX_CUSTOM_ID) throw new RangeError(`approval custom id is ${id.length} characters; Discord allows ${MAX_CUSTOM_ID}`);
  return id;
}

/** Undefined for anything that is not one of our approval buttons (clicks are untrusted input). */
export function parseApprovalCustomId(customId: string): ApprovalButton | undefined {
  const match = APPROVAL_ID.exec(customId);
  if (!match) return undefined;
  return { decision: match[1] === "a" ? "approve" : "deny", runId: match[2]!, callId: match[3]! };
}

/** Undefined for a button that is not one of ours, or a malformed one. */
export function parseButton(customId: string): Button | undefined {
  const approval = parseApprovalCustomId(customId);
  if (approval) return { kind: "decision", ...approval };
  const stop = STOP_ID.exec(customId);
  if (stop) return { kind: "stop", runId: stop[1]! };
  const vote = FEEDBACK_ID.exec(customId);
  if (vote) return { kind: "feedback", rating: vote[1] === "u" ? "up" : "down", runId: vote[2]!, guard: vote[3]! };
  const held = HELD_ID.exec(customId);
  if (held) return { kind: "held", choice: HELD_CHOICES[held[1] as keyof typeof HELD_CHOICES], runId: held[2]! };
  return undefined;
}

export type ButtonRow = APIActionRowComponent<APIButtonComponentWithCustomId>;
export type LinkRow = APIActionRowComponent<APIButtonComponentWithURL>;

/** A row holding one link button; undefined when Discord would refuse its url. */
export function linkButtons(label: string, url: string): LinkRow[] | undefined {
  if (url.length > MAX_LINK_URL) return undefined;
  const shown = label.length <= MAX_LABEL ? label : `${label.slice(0, MAX_LABEL - 1)}…`;
  return [{ type: ComponentType.ActionRow, components: [{ type: ComponentType.Button, style: ButtonStyle.Link, label: shown, url }] }];
}

const row = (...components: APIButtonComponentWithCustomId[]): ButtonRow[] => [{ type: ComponentType.ActionRow, components }];

export function approvalButtons(runId: string, callId: string, options: { disabled?: boolean } = {}): ButtonRow[] {
  const disabled = options.disabled ?? false;
  const button = (decision: Decision, label: string, style: ButtonStyle.Success | ButtonStyle.Danger) => ({
    type: ComponentType.Button as const,
    style,
    label,
    custom_id: approvalCustomId({ decision, runId, callId }),
    disabled,
  });
  return row(button("approve", "Approve", ButtonStyle.Success), button("deny", "Deny", ButtonStyle.Danger));
}

export function stopButtons(runId: string): ButtonRow[] {
  return row({ type: ComponentType.Button, style: ButtonStyle.Secondary, label: "Stop", custom_id: `stop:${runId}` });
}

/** Post here / Send to me privately / Drop under a held answer's preview (`held:<p|v|d>:<runId>`). */
export function heldButtons(runId: string): ButtonRow[] {
  const choice = (key: "p" | "v" | "d", label: string, style: ButtonStyle.Primary | ButtonStyle.Secondary | ButtonStyle.Danger) => ({
    type: ComponentType.Button as const,
    style,
    label,
    custom_id: `held:${key}:${runId}`,
  });
  return row(
    choice("p", "Post here", ButtonStyle.Primary),
    choice("v", "Send to me privately", ButtonStyle.Secondary),
    choice("d", "Drop", ButtonStyle.Danger),
  );
}

export function feedbackButtons(runId: string, stop: GuardStop | undefined): ButtonRow[] {
  const guard = guardOf(stop);
  const vote = (rating: "u" | "d", emoji: string) => ({
    type: ComponentType.Button as const,
    style: ButtonStyle.Secondary as const,
    emoji: { name: emoji },
    custom_id: `fb:${rating}:${runId}:${guard}`,
  });
  return row(vote("u", "👍"), vote("d", "👎"));
}
