// A server's question on Discord: the card's buttons (`form:o|d|c:<formId>`: Answer <server>,
// Decline, Dismiss; a link button for a page), and the modal its Answer opens: a label per field
// holding a text input, a select, or a checkbox, the schema's defaults preset, the server's
// message on top when there is room. Discord caps a modal at 5 components, labels at 45
// characters and a select at 25 options; a form that does not fit is not opened (the person can
// still decline it). The modal's submission is read back (untrusted) into the values the core checks.
import { ButtonStyle, ComponentType, type APIActionRowComponent, type APIButtonComponent } from "discord.js";
import type { FormField, PendingForm } from "../../contracts/types.js";
import type { FormInput } from "../../runs/forms/form-values.js";
import { defaultText } from "../../runs/forms/form-values.js";
import type { FormAction } from "../core/form-clicks.js";
import { answerLabel } from "../core/forms.js";
import { linkButtons } from "./buttons.js";

const FORM_BUTTON_ID = /^form:([odc]):(frm_[A-Za-z0-9_-]{8,40})$/;
const FORM_MODAL_ID = /^form:(frm_[A-Za-z0-9_-]{8,40})$/;
const MODAL_COMPONENTS = 5;
const TITLE_CHARS = 45;
const LABEL_CHARS = 45;
const DESCRIPTION_CHARS = 100;
const SELECT_OPTIONS = 25;
const CHECKBOX_OPTIONS = 10;
const OPTION_CHARS = 100;
const TEXT_CHARS = 4_000;
const ACTIONS: Readonly<Record<string, FormAction>> = { o: "open", d: "decline", c: "cancel" };

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export function parseFormButton(customId: string): { readonly formId: string; readonly action: FormAction } | undefined {
  const match = FORM_BUTTON_ID.exec(customId);
  return match ? { action: ACTIONS[match[1]!]!, formId: match[2]! } : undefined;
}

export function parseFormModalId(customId: string): string | undefined {
  return FORM_MODAL_ID.exec(customId)?.[1];
}

export function formButtons(form: PendingForm): APIActionRowComponent<APIButtonComponent>[] {
  const { question } = form;
  if (question.kind === "url") return linkButtons(`Open for ${question.server}`, question.url) ?? [];
  const button = (code: string, label: string, style: ButtonStyle.Primary | ButtonStyle.Secondary) => ({
    type: ComponentType.Button as const,
    style,
    label: cut(label, 80),
    custom_id: `form:${code}:${form.formId}`,
  });
  return [
    {
      type: ComponentType.ActionRow,
      components: [
        ...(fitsModal(form) ? [button("o", answerLabel(form), ButtonStyle.Primary)] : []),
        button("d", "Decline", ButtonStyle.Secondary),
        button("c", "Dismiss", ButtonStyle.Secondary),
      ],
    },
  ];
}

/** A Discord modal holds 5 fields: a longer form can be declined or dismissed here, not answered. */
export function fitsModal(form: PendingForm): boolean {
  return form.question.kind === "form" && form.question.fields.length <= MODAL_COMPONENTS;
}

function input(field: FormField) {
  const fallback = defaultText(field);
  switch (field.kind) {
    case "boolean":
      return { type: ComponentType.Checkbox, custom_id: field.name, default: field.default === true };
    case "choices": {
      const options = field.options.map((option) => ({
        label: cut(option.label, OPTION_CHARS),
        value: option.value,
        default: field.default?.includes(option.value) ?? false,
      }));
      const min = field.required && field.default === undefined ? Math.max(1, field.minItems ?? 1) : (field.minItems ?? 0);
      const bounds = { min_values: min, max_values: Math.min(field.maxItems ?? options.length, options.length), required: min > 0 };
      if (options.length <= CHECKBOX_OPTIONS) return { type: ComponentType.CheckboxGroup, custom_id: field.name, options, ...bounds };
      if (options.length <= SELECT_OPTIONS) return { type: ComponentType.StringSelect, custom_id: field.name, options, ...bounds };
      break;
    }
    case "choice":
      if (field.options.length <= SELECT_OPTIONS)
        return {
          type: ComponentType.StringSelect,
          custom_id: field.name,
          required: field.required && field.default === undefined,
          min_values: field.required && field.default === undefined ? 1 : 0,
          max_values: 1,
          options: field.options.map((option) => ({
            label: cut(option.label, OPTION_CHARS),
            value: option.value,
            default: option.value === field.default,
          })),
        };
      break;
    default:
      break;
  }
  const max = field.kind === "text" ? Math.min(field.maxLength ?? TEXT_CHARS, TEXT_CHARS) : 100;
  return {
    type: ComponentType.TextInput,
    custom_id: field.name,
    style: max > 200 ? 2 : 1,
    required: field.required && field.default === undefined,
    max_length: max,
    ...(field.kind === "text" && field.minLength ? { min_length: Math.min(field.minLength, max) } : {}),
    ...(fallback !== undefined ? { value: fallback.slice(0, max) } : {}),
    ...(field.kind === "choice" || field.kind === "choices"
      ? { placeholder: cut(field.options.map((option) => option.label).join(", "), 100) }
      : {}),
  };
}

/** The modal, or undefined when the form has more fields than a Discord modal holds. */
export function formModal(form: PendingForm) {
  const { question } = form;
  if (question.kind !== "form" || question.fields.length > MODAL_COMPONENTS) return undefined;
  const labels = question.fields.map((field) => ({
    type: ComponentType.Label,
    label: cut(field.label, LABEL_CHARS),
    ...(field.description ? { description: cut(field.description, DESCRIPTION_CHARS) } : {}),
    component: input(field),
  }));
  const room = question.fields.length < MODAL_COMPONENTS;
  return {
    custom_id: `form:${form.formId}`,
    title: cut(answerLabel(form), TITLE_CHARS),
    components: [
      ...(room ? [{ type: ComponentType.TextDisplay, content: cut(`${question.server} asks: ${question.message}`, TEXT_CHARS) }] : []),
      ...labels,
    ],
  };
}

/** What the modal's fields hold, by field name, as discord.js read them. */
export function modalInputs(fields: Iterable<{ readonly type: ComponentType; readonly customId: string } & Record<string, unknown>>) {
  const inputs: Record<string, FormInput> = {};
  for (const field of fields) {
    if (field.type === ComponentType.Checkbox) inputs[field.customId] = field.value === true;
    else if (field.type === ComponentType.StringSelect || field.type === ComponentType.CheckboxGroup)
      inputs[field.customId] = (field.values as readonly string[] | undefined) ?? [];
    else if (field.type === ComponentType.TextInput) inputs[field.customId] = typeof field.value === "string" ? field.value : undefined;
  }
  return inputs;
}
