// A held answer's preview on Slack (runs/holds): to the requester alone, ephemeral in the thread
// where they asked, else a direct message, with Post here, Send to me privately and Drop; and the
// clicks on it. An ephemeral message's click carries no `message`, so each button's value names
// the run and the thread (untrusted, checked with zod); the held answer itself is in the store.
import type { App, webApi } from "@slack/bolt";
import { z } from "zod";
import type { Logger } from "../../logger.js";
import type { HeldChoice } from "../../runs/holds/held-answers.js";
import { fitPreview } from "../core/held-answers.js";
import { spotOf, type SurfaceCore } from "../core/inbound.js";
import { refOfContext, type WorkspaceRef } from "./install/workspace-ref.js";
import { buttonText } from "./link-button.js";
import { jsonValue } from "./slack-api.js";
import { enterpriseOf } from "./slack-clicks.js";
import { conversationAt, type ThreadPlace } from "./slack-place.js";
import type { SlackClicked } from "./slack-refs.js";

export const HELD_POST_ACTION = "agent_held_post";
export const HELD_PRIVATE_ACTION = "agent_held_private";
export const HELD_DROP_ACTION = "agent_held_drop";
const CHOICES: Readonly<Record<string, HeldChoice>> = {
  [HELD_POST_ACTION]: "post",
  [HELD_PRIVATE_ACTION]: "private",
  [HELD_DROP_ACTION]: "drop",
};
/** Slack's limit on a section block's text. */
const SECTION_MAX_CHARS = 3_000;

const ButtonValue = z.object({ r: z.string().regex(/^[\w-]{1,32}$/), c: z.string().min(1).max(40), t: z.string().max(40).optional() });
const Click = z.object({
  team: z.object({ id: z.string().min(1) }).nullish(),
  user: z.object({ id: z.string().min(1), username: z.string().optional(), name: z.string().optional(), team_id: z.string().optional() }),
  actions: z.array(z.object({ value: z.string().optional() })).min(1),
});

export function heldBlocks(preview: string, runId: string, place: Pick<ThreadPlace, "channel" | "replyThreadTs">) {
  const value = JSON.stringify({ r: runId, c: place.channel, ...(place.replyThreadTs ? { t: place.replyThreadTs } : {}) });
  const button = (action: string, label: string, style?: "primary" | "danger") => ({
    type: "button" as const,
    action_id: action,
    text: buttonText(label),
    value,
    ...(style ? { style } : {}),
  });
  return [
    { type: "section" as const, text: { type: "mrkdwn" as const, text: fitPreview(preview, SECTION_MAX_CHARS) } },
    {
      type: "actions" as const,
      block_id: "held",
      elements: [
        button(HELD_POST_ACTION, "Post here", "primary"),
        button(HELD_PRIVATE_ACTION, "Send to me privately"),
        button(HELD_DROP_ACTION, "Drop", "danger"),
      ],
    },
  ];
}

/** The preview, to the requester alone: ephemeral in the run's thread, else a direct message. False when neither went. Never throws. */
export async function postHeldPreview(
  client: webApi.WebClient,
  logger: Logger,
  place: ThreadPlace,
  user: string,
  preview: string,
  runId: string,
): Promise<boolean> {
  const thread = place.replyThreadTs ? { thread_ts: place.replyThreadTs } : {};
  const blocks = heldBlocks(preview, runId, place);
  try {
    await client.chat.postEphemeral({ channel: place.channel, user, text: preview, blocks, ...thread });
    return true;
  } catch (error) {
    logger.info({ err: error, runId }, "Slack refused a held answer's ephemeral preview; sending it as a direct message");
  }
  try {
    await client.chat.postMessage({ channel: user, text: preview, blocks });
    return true;
  } catch (error) {
    logger.warn({ err: error, runId }, "could not show a held answer's preview to its requester");
    return false;
  }
}

/** Hands a click on a held answer's button to the core. Never rejects. */
async function takeHeldClick(
  core: SurfaceCore<SlackClicked>,
  action: string,
  body: unknown,
  ignored: () => void,
  workspace?: WorkspaceRef,
) {
  const parsed = Click.safeParse(body);
  const choice = CHOICES[action];
  const value = parsed.success ? jsonValue(ButtonValue, parsed.data.actions[0]!.value) : undefined;
  if (!parsed.success || !choice || !value) return ignored();
  const { team: teamOf, user } = parsed.data;
  const conversation = conversationAt({
    team: teamOf?.id ?? user.team_id ?? "",
    channel: value.c,
    traceThreadTs: value.t ?? "",
    ...(value.t ? { replyThreadTs: value.t } : {}),
    ...enterpriseOf(workspace),
  });
  const name = user.username ?? user.name;
  const at = spotOf("slack", conversation, { id: user.id, ...(name ? { name } : {}), roles: [] });
  const clicked: SlackClicked = { channel: value.c, ts: value.t ?? "", ...(workspace ? { workspace } : {}) };
  return core.held({ at, clicked, runId: value.r, choice });
}

export function listenForHeldAnswers(bolt: App, core: SurfaceCore<SlackClicked>, logger: Logger): void {
  for (const action of Object.keys(CHOICES)) {
    bolt.action(action, async ({ ack, body, context }) => {
      await ack();
      void takeHeldClick(core, action, body, () => logger.warn({ action }, "ignored a malformed held answer click"), refOfContext(context));
    });
  }
}
