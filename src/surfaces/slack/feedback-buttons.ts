// 👍 / 👎 under each answer: a small context-and-actions message after the answer. A click is
// stored with the run id, the conversation, the person and how the run ended (the guard); 👎
// opens a small modal for an optional comment. The button names only the run and its guard,
// everything else comes from where the click happened.
import { z } from "zod";
import type { webApi } from "@slack/bolt";
import type { GuardStop } from "../../agent/types.js";
import { COMMENT_MAX_CHARS, type Rating } from "../../memory/feedback.js";
import type { Logger } from "../../logger.js";
import { tellPrivately } from "./private-note.js";
import type { ReplyTarget } from "./post-answer.js";
import type { SlackRuntime } from "./slack-runtime.js";

export const FEEDBACK_UP_ACTION = "agent_feedback_up";
export const FEEDBACK_DOWN_ACTION = "agent_feedback_down";
export const FEEDBACK_MODAL = "agent_feedback_comment";
const COMMENT_BLOCK = "comment";
const COMMENT_INPUT = "comment_text";
const THANKS = "Thanks for the feedback.";

const ButtonValue = z.object({ r: z.string().min(1).max(64), g: z.string().min(1).max(40) });
const ModalMetadata = z.object({ runId: z.string().min(1).max(64) });

export function feedbackBlocks(runId: string, stop: GuardStop | undefined) {
  const value = JSON.stringify({ r: runId, g: stop?.guard ?? "none" });
  return [
    {
      type: "actions" as const,
      block_id: "feedback",
      elements: [
        { type: "button" as const, action_id: FEEDBACK_UP_ACTION, text: { type: "plain_text" as const, text: "👍", emoji: true }, value },
        { type: "button" as const, action_id: FEEDBACK_DOWN_ACTION, text: { type: "plain_text" as const, text: "👎", emoji: true }, value },
      ],
    },
  ];
}

/** Never throws: feedback is welcome, not required. */
export async function postFeedbackButtons(
  client: webApi.WebClient,
  target: ReplyTarget,
  runId: string,
  stop: GuardStop | undefined,
  logger: Logger,
): Promise<void> {
  try {
    await client.chat.postMessage({
      channel: target.channel,
      ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
      text: "Was this answer helpful?",
      blocks: feedbackBlocks(runId, stop),
    });
  } catch (error) {
    logger.warn({ err: error, runId }, "could not show the feedback buttons");
  }
}

const Click = z.object({
  trigger_id: z.string().min(1),
  team: z.object({ id: z.string().min(1) }).nullish(),
  user: z.object({ id: z.string().min(1), username: z.string().optional(), team_id: z.string().optional() }),
  channel: z.object({ id: z.string().min(1) }),
  message: z.object({ ts: z.string().min(1), thread_ts: z.string().optional() }),
  actions: z.array(z.object({ value: z.string() })).min(1),
});

function commentModal(runId: string) {
  return {
    type: "modal" as const,
    callback_id: FEEDBACK_MODAL,
    private_metadata: JSON.stringify({ runId }),
    title: { type: "plain_text" as const, text: "Thanks for telling us" },
    submit: { type: "plain_text" as const, text: "Send" },
    close: { type: "plain_text" as const, text: "Skip" },
    blocks: [
      {
        type: "input" as const,
        block_id: COMMENT_BLOCK,
        optional: true,
        label: { type: "plain_text" as const, text: "What was wrong? (optional)" },
        element: { type: "plain_text_input" as const, action_id: COMMENT_INPUT, multiline: true, max_length: COMMENT_MAX_CHARS },
      },
    ],
  };
}

async function permalink(client: webApi.WebClient, channel: string, ts: string): Promise<string | undefined> {
  try {
    const response = await client.chat.getPermalink({ channel, message_ts: ts });
    return typeof response.permalink === "string" ? response.permalink : undefined;
  } catch {
    return undefined;
  }
}

/** Never throws. `body` is the block_actions payload: untrusted. */
export async function handleFeedbackClick(runtime: SlackRuntime, body: unknown, rating: Rating): Promise<void> {
  const parsed = Click.safeParse(body);
  const value = parsed.success ? ButtonValue.safeParse(safeJson(parsed.data.actions[0]!.value)) : undefined;
  if (!parsed.success || !value?.success) {
    runtime.logger.warn("ignored a malformed feedback click");
    return;
  }
  const click = parsed.data;
  const thread = click.message.thread_ts ?? click.message.ts;
  const team = click.team?.id ?? click.user.team_id ?? "";
  try {
    // The trigger id lasts 3 s: the modal opens at once, the vote is stored meanwhile (the comment finds it by run and person).
    const modal =
      rating === "down"
        ? runtime.client.views.open({ trigger_id: click.trigger_id, view: commentModal(value.data.r) }).then(
            () => undefined,
            (error: unknown) => runtime.logger.warn({ err: error }, "could not open the feedback form"),
          )
        : undefined;
    await runtime.service.feedback.record({
      runId: value.data.r,
      surface: "slack",
      conversationKey: `slack:${team}:${click.channel.id}:${thread}`,
      person: { id: click.user.id, ...(click.user.username ? { name: click.user.username } : {}) },
      rating,
      guard: value.data.g,
      // The buttons' own message: its link opens the answer in its thread.
      ...(await permalink(runtime.client, click.channel.id, click.message.ts).then((link) => (link ? { link } : {}))),
      at: runtime.now(),
    });
    if (modal) await modal;
    else await tellPrivately(runtime, { channel: click.channel.id, user: click.user.id, threadTs: thread }, THANKS);
  } catch (error) {
    runtime.logger.error({ err: error, runId: value.data.r }, "could not record feedback");
  }
}

const Submission = z.object({
  user: z.object({ id: z.string().min(1) }),
  view: z.object({
    private_metadata: z.string(),
    state: z.object({ values: z.record(z.string(), z.record(z.string(), z.object({ value: z.string().nullish() }))) }),
  }),
});

/** The modal's Send: the comment joins the person's vote. Never throws. */
export async function handleFeedbackComment(runtime: SlackRuntime, body: unknown): Promise<void> {
  const parsed = Submission.safeParse(body);
  const metadata = parsed.success ? ModalMetadata.safeParse(safeJson(parsed.data.view.private_metadata)) : undefined;
  if (!parsed.success || !metadata?.success) {
    runtime.logger.warn("ignored a malformed feedback comment");
    return;
  }
  const text = parsed.data.view.state.values[COMMENT_BLOCK]?.[COMMENT_INPUT]?.value?.trim();
  if (!text) return;
  try {
    if (!(await runtime.service.feedback.comment(metadata.data.runId, parsed.data.user.id, text)))
      runtime.logger.info({ runId: metadata.data.runId }, "a feedback comment had no vote to join");
  } catch (error) {
    runtime.logger.error({ err: error }, "could not save a feedback comment");
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
