// A server's form as a Slack modal: one input block per field (text, email and link inputs, a
// date picker, a number input, a checkbox for a yes/no, a select for a choice), the schema's
// defaults as initial values, the server named at the top; and the modal's submission read back
// (untrusted) into the values the core checks. Problems go back inside the modal, under their field.
import { z } from "zod";
import type { FormField, PendingForm } from "../../contracts/types.js";
import type { FormInput } from "../../runs/forms/form-values.js";
import { jsonValue } from "./slack-api.js";
import { escapeSlackText, neutraliseMentions } from "./slack-text.js";

export const FORM_MODAL = "agent_form";
/** Slack's limits on a modal's title and buttons, an option's text, a label and a text input. */
const TITLE_CHARS = 24;
const OPTION_CHARS = 75;
const LABEL_CHARS = 2_000;
const TEXT_INPUT_CHARS = 3_000;
/** Slack's checkboxes hold 10 options; more go in a multi-select. */
const CHECKBOX_OPTIONS = 10;
const ACTION = "v";
const blockOf = (name: string) => `f:${name}`;

const plain = (text: string, max: number) => ({
  type: "plain_text" as const,
  text: text.length <= max ? text : `${text.slice(0, max - 1)}…`,
});

const Metadata = z.object({ f: z.string().min(1).max(64), c: z.string().min(1).max(40), t: z.string().max(40).optional() });
const StateValue = z.object({
  type: z.string(),
  value: z.string().nullish(),
  selected_option: z.object({ value: z.string() }).nullish(),
  selected_options: z.array(z.object({ value: z.string() })).nullish(),
  selected_date: z.string().nullish(),
});
const Submission = z.object({
  team: z.object({ id: z.string() }).nullish(),
  user: z.object({ id: z.string().min(1), username: z.string().optional(), name: z.string().optional(), team_id: z.string().optional() }),
  view: z.object({ private_metadata: z.string(), state: z.object({ values: z.record(z.string(), z.record(z.string(), StateValue)) }) }),
});

function element(field: FormField) {
  switch (field.kind) {
    case "boolean":
      return {
        type: "checkboxes" as const,
        action_id: ACTION,
        options: [{ text: plain("Yes", OPTION_CHARS), value: "true" }],
        ...(field.default ? { initial_options: [{ text: plain("Yes", OPTION_CHARS), value: "true" }] } : {}),
      };
    case "choices": {
      const options = field.options.map((option) => ({ text: plain(option.label, OPTION_CHARS), value: option.value }));
      const initial = options.filter((option) => field.default?.includes(option.value));
      const chosen = initial.length > 0 ? { initial_options: initial } : {};
      if (options.length <= CHECKBOX_OPTIONS) return { type: "checkboxes" as const, action_id: ACTION, options, ...chosen };
      return {
        type: "multi_static_select" as const,
        action_id: ACTION,
        options,
        ...chosen,
        ...(field.maxItems ? { max_selected_items: field.maxItems } : {}),
      };
    }
    case "choice": {
      const options = field.options.map((option) => ({ text: plain(option.label, OPTION_CHARS), value: option.value }));
      const initial = options.find((option) => option.value === field.default);
      return { type: "static_select" as const, action_id: ACTION, options, ...(initial ? { initial_option: initial } : {}) };
    }
    case "number":
      return {
        type: "number_input" as const,
        action_id: ACTION,
        is_decimal_allowed: !field.integer,
        ...(field.minimum !== undefined ? { min_value: String(field.minimum) } : {}),
        ...(field.maximum !== undefined ? { max_value: String(field.maximum) } : {}),
        ...(field.default !== undefined ? { initial_value: String(field.default) } : {}),
      };
    case "text": {
      const initial = field.default !== undefined ? { initial_value: field.default } : {};
      if (field.format === "email") return { type: "email_text_input" as const, action_id: ACTION, ...initial };
      if (field.format === "uri") return { type: "url_text_input" as const, action_id: ACTION, ...initial };
      if (field.format === "date")
        return { type: "datepicker" as const, action_id: ACTION, ...(field.default ? { initial_date: field.default } : {}) };
      const max = Math.min(field.maxLength ?? TEXT_INPUT_CHARS, TEXT_INPUT_CHARS);
      return {
        type: "plain_text_input" as const,
        action_id: ACTION,
        max_length: max,
        multiline: max > 150,
        ...(field.minLength ? { min_length: Math.min(field.minLength, max) } : {}),
        ...(field.default !== undefined ? { initial_value: field.default.slice(0, max) } : {}),
      };
    }
  }
}

/** The modal for `form`; `where` is the thread the person is told in once it is sent. */
export function formModal(form: PendingForm, where: { readonly channel: string; readonly threadTs?: string }) {
  const { question } = form;
  if (question.kind !== "form") throw new Error("a link has no modal");
  return {
    type: "modal" as const,
    callback_id: FORM_MODAL,
    private_metadata: JSON.stringify({ f: form.formId, c: where.channel, ...(where.threadTs ? { t: where.threadTs } : {}) }),
    title: plain(`Answer ${question.server}`, TITLE_CHARS),
    submit: plain("Send", TITLE_CHARS),
    close: plain("Close", TITLE_CHARS),
    blocks: [
      {
        type: "section" as const,
        text: { type: "mrkdwn" as const, text: escapeSlackText(neutraliseMentions(question.message)).slice(0, 3_000) },
      },
      {
        type: "context" as const,
        elements: [
          { type: "mrkdwn" as const, text: escapeSlackText(`Asked by the MCP server ${question.server}. What you send goes to it.`) },
        ],
      },
      ...question.fields.map((field) => ({
        type: "input" as const,
        block_id: blockOf(field.name),
        optional: !field.required || field.default !== undefined || field.kind === "boolean",
        label: plain(field.label, LABEL_CHARS),
        ...(field.description ? { hint: plain(field.description, LABEL_CHARS) } : {}),
        element: element(field),
      })),
    ],
  };
}

export interface FormSubmissionRead {
  readonly formId: string;
  readonly channel: string;
  readonly threadTs?: string;
  readonly team: string;
  readonly user: { readonly id: string; readonly name?: string };
  readonly inputs: Readonly<Record<string, FormInput>>;
}

/** The modal's Send (untrusted): which form, who, and what each field holds. */
export function readFormSubmission(body: unknown): FormSubmissionRead | undefined {
  const parsed = Submission.safeParse(body);
  const metadata = parsed.success ? jsonValue(Metadata, parsed.data.view.private_metadata) : undefined;
  if (!parsed.success || !metadata) return undefined;
  const inputs: Record<string, FormInput> = {};
  for (const [block, actions] of Object.entries(parsed.data.view.state.values)) {
    const state = actions[ACTION];
    if (!block.startsWith("f:") || !state) continue;
    const name = block.slice(2);
    // A yes/no's checkbox is read as the values checked too ("true" among them, or not).
    if (state.type === "checkboxes" || state.type === "multi_static_select")
      inputs[name] = (state.selected_options ?? []).map((option) => option.value);
    else if (state.type === "static_select") inputs[name] = state.selected_option?.value ?? undefined;
    else if (state.type === "datepicker") inputs[name] = state.selected_date ?? undefined;
    else inputs[name] = state.value ?? undefined;
  }
  const { user } = parsed.data;
  const name = user.username ?? user.name;
  return {
    formId: metadata.f,
    channel: metadata.c,
    ...(metadata.t ? { threadTs: metadata.t } : {}),
    team: parsed.data.team?.id ?? user.team_id ?? "",
    user: { id: user.id, ...(name ? { name } : {}) },
    inputs,
  };
}

/** Problems by field, as Slack shows them under each input block. */
export function modalErrors(fields: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([name, problem]) => [blockOf(name), problem]));
}
