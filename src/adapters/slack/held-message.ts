// A held answer's preview on Slack (runs/holds): to the requester alone, ephemeral in the thread
// where they asked, else a direct message, with Post here, Send to me privately and Drop; and the
// clicks on it. Its buttons name the run and the thread (card-clicks.ts); the held answer itself
// is in the store.
import type { App, webApi } from "@slack/bolt";
import { z } from "zod";
import type { Logger } from "../../logger.js";
import type { HeldChoice } from "../../runs/holds/held-answers.js";
import { fitPreview } from "../core/held-answers.js";
import type { SurfaceCore } from "../core/inbound.js";
import { type CardActions, cardValue, cardValueSchema, listenForCard } from "./card-clicks.js";
import { buttonText } from "./link-button.js";
import type { ThreadPlace } from "./slack-place.js";
import type { SlackClicked } from "./slack-refs.js";

export const HELD_POST_ACTION = "agent_held_post";
export const HELD_PRIVATE_ACTION = "agent_held_private";
export const HELD_DROP_ACTION = "agent_held_drop";
const HELD_ACTIONS: CardActions<HeldChoice> = {
  [HELD_POST_ACTION]: "post",
  [HELD_PRIVATE_ACTION]: "private",
  [HELD_DROP_ACTION]: "drop",
};
/** The preview's buttons, each naming the run (`r`). */
export const HELD_CARD = {
  actions: HELD_ACTIONS,
  value: cardValueSchema({ r: z.string().regex(/^[\w-]{1,32}$/) }),
  what: "held answer",
};
/** Slack's limit on a section block's text. */
const SECTION_MAX_CHARS = 3_000;

export function heldBlocks(preview: string, runId: string, place: Pick<ThreadPlace, "channel" | "replyThreadTs">) {
  const value = cardValue({ r: runId }, place);
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

export function listenForHeldAnswers(bolt: App, core: SurfaceCore<SlackClicked>, logger: Logger): void {
  listenForCard(bolt, HELD_CARD, logger, ({ at, clicked, pressed, value }) => core.held({ at, clicked, runId: value.r, choice: pressed }));
}
