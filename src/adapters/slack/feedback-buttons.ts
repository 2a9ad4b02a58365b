// 👍 / 👎 under each answer: a small actions message after the answer, whose buttons name
// only the run and how it ended (the core's feedback flow takes the click, core/clicks.ts).
// 👎 opens a small modal for an optional comment.
import type { webApi } from "@slack/bolt";
import { z } from "zod";
import type { GuardStop } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import { guardOf } from "../core/inbound.js";
import { jsonValue } from "./slack-api.js";
import { COMMENT_MAX_CHARS } from "../../memory/feedback.js";

export const FEEDBACK_UP_ACTION = "agent_feedback_up";
export const FEEDBACK_DOWN_ACTION = "agent_feedback_down";
export const FEEDBACK_MODAL = "agent_feedback_comment";
const COMMENT_BLOCK = "comment";
const COMMENT_INPUT = "comment_text";

const ButtonValue = z.object({ r: z.string().min(1).max(64), g: z.string().min(1).max(40) });
const ModalMetadata = z.object({ runId: z.string().min(1).max(64) });
const Submission = z.object({
  user: z.object({ id: z.string().min(1), username: z.string().optional() }),
  view: z.object({
    private_metadata: z.string(),
    state: z.object({ values: z.record(z.string(), z.record(z.string(), z.object({ value: z.string().nullish() }))) }),
  }),
});

export function feedbackBlocks(runId: string, stop: GuardStop | undefined) {
  const value = JSON.stringify({ r: runId, g: guardOf(stop) });
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

/** The run and guard a feedback button names (untrusted). */
export function decodeFeedbackValue(value: string): { readonly runId: string; readonly guard: string } | undefined {
  const parsed = jsonValue(ButtonValue, value);
  return parsed && { runId: parsed.r, guard: parsed.g };
}

/** Opens the comment form; the trigger id lasts 3 s. Never throws. */
export async function openCommentForm(client: webApi.WebClient, logger: Logger, triggerId: string, runId: string): Promise<boolean> {
  try {
    await client.views.open({
      trigger_id: triggerId,
      view: {
        type: "modal",
        callback_id: FEEDBACK_MODAL,
        private_metadata: JSON.stringify({ runId }),
        title: { type: "plain_text", text: "Thanks for telling us" },
        submit: { type: "plain_text", text: "Send" },
        close: { type: "plain_text", text: "Skip" },
        blocks: [
          {
            type: "input",
            block_id: COMMENT_BLOCK,
            optional: true,
            label: { type: "plain_text", text: "What was wrong? (optional)" },
            element: { type: "plain_text_input", action_id: COMMENT_INPUT, multiline: true, max_length: COMMENT_MAX_CHARS },
          },
        ],
      },
    });
    return true;
  } catch (error) {
    logger.warn({ err: error }, "could not open the feedback form");
    return false;
  }
}

/** The modal's Send (untrusted): the run, the person and their comment. */
export function parseComment(body: unknown): { readonly runId: string; readonly user: string; readonly text: string } | undefined {
  const parsed = Submission.safeParse(body);
  const metadata = parsed.success ? jsonValue(ModalMetadata, parsed.data.view.private_metadata) : undefined;
  if (!parsed.success || !metadata) return undefined;
  const text = parsed.data.view.state.values[COMMENT_BLOCK]?.[COMMENT_INPUT]?.value ?? "";
  return { runId: metadata.runId, user: parsed.data.user.id, text };
}
