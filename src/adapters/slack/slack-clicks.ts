// Slack's block_actions payloads (untrusted, checked with zod) as the core's clicks: who clicked,
// where (the clicked message's thread), and what the button names. A payload that does not
// parse at all is ignored; a button whose value can't be read is told so.
import { z } from "zod";
import type { Decision } from "../../contracts/types.js";
import type { Rating } from "../../memory/feedback.js";
import { spotOf, takeButton, type Button, type SurfaceCore } from "../core/inbound.js";
import type { Spot } from "../core/spot.js";
import { APPROVE_ACTION, decodeApprovalValue, DENY_ACTION } from "./approval-message.js";
import { decodeFeedbackValue, FEEDBACK_DOWN_ACTION, FEEDBACK_UP_ACTION } from "./feedback-buttons.js";
import { STOP_ACTION } from "./slack-working.js";
import { conversationAt } from "./slack-place.js";
import type { SlackClicked } from "./slack-refs.js";
import type { WorkspaceRef } from "./install/workspace-ref.js";

const Body = z.object({
  trigger_id: z.string().min(1).optional(),
  team: z.object({ id: z.string().min(1) }).nullish(),
  user: z.object({ id: z.string().min(1), username: z.string().optional(), name: z.string().optional(), team_id: z.string().optional() }),
  channel: z.object({ id: z.string().min(1) }),
  message: z.object({ ts: z.string().min(1), thread_ts: z.string().optional(), blocks: z.unknown().optional() }),
  actions: z.array(z.object({ value: z.string().optional() })).min(1),
});

type Parsed = { readonly at: Spot; readonly clicked: SlackClicked; readonly value: string };

function parse(body: unknown, workspace: WorkspaceRef | undefined): Parsed | undefined {
  const parsed = Body.safeParse(body);
  if (!parsed.success) return undefined;
  const { team: teamOf, user, channel, message, actions, trigger_id } = parsed.data;
  const team = teamOf?.id ?? user.team_id ?? "";
  const conversation = conversationAt({
    team,
    channel: channel.id,
    traceThreadTs: message.thread_ts ?? message.ts,
    ...(message.thread_ts ? { replyThreadTs: message.thread_ts } : {}),
    ...(user.team_id && user.team_id !== team ? { requesterTeam: user.team_id } : {}),
    ...enterpriseOf(workspace),
  });
  const name = user.username ?? user.name;
  return {
    at: spotOf("slack", conversation, { id: user.id, ...(name ? { name } : {}), roles: [] }),
    clicked: {
      channel: channel.id,
      ts: message.ts,
      blocks: message.blocks,
      ...(trigger_id ? { triggerId: trigger_id } : {}),
      ...(workspace ? { workspace } : {}),
    },
    value: actions[0]!.value ?? "",
  };
}

const RUN_ID = /^[\w-]{1,32}$/;

/** How each of the bot's buttons reads its value (untrusted); undefined when it can't. */
const BUTTONS = new Map<string, (value: string) => Button | undefined>([
  [APPROVE_ACTION, (value) => decision(value, "approve")],
  [DENY_ACTION, (value) => decision(value, "deny")],
  [STOP_ACTION, (value) => (RUN_ID.test(value) ? { kind: "stop", runId: value } : undefined)],
  [FEEDBACK_UP_ACTION, (value) => vote(value, "up")],
  // 👎 also opens the comment form (the click's trigger id lasts 3 s; the core opens it before storing the vote).
  [FEEDBACK_DOWN_ACTION, (value) => vote(value, "down")],
]);

function decision(value: string, decision: Decision): Button | undefined {
  const ref = decodeApprovalValue(value);
  return ref && { kind: "decision", decision, ...ref };
}

function vote(value: string, rating: Rating): Button | undefined {
  const named = decodeFeedbackValue(value);
  return named && { kind: "feedback", rating, ...named };
}

/** The action ids of the bot's buttons. */
export const BUTTON_ACTIONS = [...BUTTONS.keys()];

/** The org of a click's or an event's workspace, as a place keeps it. */
export const enterpriseOf = (workspace: WorkspaceRef | undefined) => ({
  ...(workspace?.enterprise ? { enterprise: workspace.enterprise } : {}),
  ...(workspace?.orgInstall ? { orgInstall: true as const } : {}),
});

/**
 * Hands one click on the button `action` to the core; `workspace` is Bolt's context of it, `mark` adds what the
 * surface knows of the person there (workspace-admins.ts). Never rejects.
 */
export async function takeClick(
  core: SurfaceCore<SlackClicked>,
  action: string,
  body: unknown,
  ignored: () => void,
  workspace?: WorkspaceRef,
  mark?: (at: Spot) => Promise<Spot>,
): Promise<void> {
  const click = parse(body, workspace);
  const read = BUTTONS.get(action);
  if (!click || !read) return ignored();
  const { value, ...pressed } = click;
  return takeButton(core, mark ? { ...pressed, at: await mark(pressed.at) } : pressed, read(value));
}
