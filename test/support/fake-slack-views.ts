// Slack's views.open as strict as Slack: a trigger id is taken only if Slack issued it (in an
// interaction's payload), within 3 seconds, and once; a modal is refused with invalid_arguments
// when it breaks a limit of Block Kit (title and button texts 24 characters, 100 blocks, 3,000
// characters of private metadata, labels 2,000, options and their texts, initial values that are
// not among the options or outside the bounds).

type Args = Record<string, unknown>;
export type ViewsAnswer = Record<string, unknown>;

export interface OpenedView {
  readonly triggerId: string;
  readonly view: Record<string, unknown>;
}

export interface FakeSlackViews {
  /** A trigger id as Slack puts one in a block_actions payload; `issuedAgoMs` ages it (past 3 s it has expired). */
  trigger(issuedAgoMs?: number): string;
  readonly opened: OpenedView[];
  open(args: Args): ViewsAnswer;
}

const TRIGGER_LIFE_MS = 3_000;
const INPUT_ELEMENTS = new Set([
  "plain_text_input",
  "email_text_input",
  "url_text_input",
  "number_input",
  "static_select",
  "multi_static_select",
  "checkboxes",
  "radio_buttons",
  "datepicker",
  "datetimepicker",
]);

const obj = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

function plainText(value: unknown, max: number, where: string, problems: string[]): void {
  const text = obj(value);
  if (text?.type !== "plain_text" || typeof text.text !== "string") return void problems.push(`${where} must be a plain_text object`);
  if (text.text.length === 0) problems.push(`${where} must not be empty`);
  if (text.text.length > max) problems.push(`${where} must be less than ${max + 1} characters`);
}

function options(list: unknown, max: number, where: string, problems: string[]): Array<Record<string, unknown>> {
  if (!Array.isArray(list) || list.length === 0 || list.length > max) {
    problems.push(`${where}.options must hold 1 to ${max} options`);
    return [];
  }
  const seen = new Set<string>();
  return list.map((raw, index) => {
    const option = obj(raw) ?? {};
    plainText(option.text, 75, `${where}.options[${index}].text`, problems);
    if (typeof option.value !== "string" || option.value.length > 150)
      problems.push(`${where}.options[${index}].value must be 1-150 characters`);
    else if (seen.has(option.value)) problems.push(`${where}.options[${index}].value is repeated`);
    else seen.add(option.value);
    return option;
  });
}

const sameOption = (a: unknown, b: Record<string, unknown>) =>
  obj(a)?.value === b.value && JSON.stringify(obj(a)?.text) === JSON.stringify(b.text);

function element(raw: unknown, where: string, problems: string[]): void {
  const el = obj(raw);
  if (!el || typeof el.type !== "string" || !INPUT_ELEMENTS.has(el.type))
    return void problems.push(`${where}.type is not an input element`);
  if (typeof el.action_id === "string" && el.action_id.length > 255) problems.push(`${where}.action_id must be less than 256 characters`);
  switch (el.type) {
    case "plain_text_input": {
      const max = typeof el.max_length === "number" ? el.max_length : 3_000;
      const min = typeof el.min_length === "number" ? el.min_length : 0;
      if (max > 3_000 || max < 1) problems.push(`${where}.max_length must be 1-3000`);
      if (min > 3_000 || min > max) problems.push(`${where}.min_length must be at most max_length and 3000`);
      if (typeof el.initial_value === "string" && el.initial_value.length > max)
        problems.push(`${where}.initial_value is longer than max_length`);
      return;
    }
    case "number_input": {
      if (typeof el.is_decimal_allowed !== "boolean") problems.push(`${where}.is_decimal_allowed is required`);
      const bound = (key: string) => (typeof el[key] === "string" ? Number(el[key]) : undefined);
      const [min, max, initial] = [bound("min_value"), bound("max_value"), bound("initial_value")];
      for (const [key, value] of [
        ["min_value", min],
        ["max_value", max],
        ["initial_value", initial],
      ] as const)
        if (value !== undefined && (!Number.isFinite(value) || (el.is_decimal_allowed === false && !Number.isInteger(value))))
          problems.push(`${where}.${key} is not a valid number`);
      if (min !== undefined && max !== undefined && min > max) problems.push(`${where}.min_value must be at most max_value`);
      if (initial !== undefined && ((min !== undefined && initial < min) || (max !== undefined && initial > max)))
        problems.push(`${where}.initial_value must be between min_value and max_value`);
      return;
    }
    case "static_select":
    case "multi_static_select":
    case "radio_buttons":
    case "checkboxes": {
      const max = el.type === "static_select" || el.type === "multi_static_select" ? 100 : 10;
      const listed = options(el.options, max, where, problems);
      if (el.initial_option !== undefined && !listed.some((option) => sameOption(el.initial_option, option)))
        problems.push(`${where}.initial_option must be one of the options`);
      if (el.initial_options !== undefined) {
        const initial = Array.isArray(el.initial_options) ? el.initial_options : [];
        if (!initial.every((chosen) => listed.some((option) => sameOption(chosen, option))))
          problems.push(`${where}.initial_options must be among the options`);
      }
      return;
    }
    case "datepicker":
      if (el.initial_date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(String(el.initial_date)))
        problems.push(`${where}.initial_date must be YYYY-MM-DD`);
      return;
    default:
      return;
  }
}

/** Why Slack would refuse this modal, one line per problem (none: it opens). */
export function modalProblems(raw: unknown): string[] {
  const problems: string[] = [];
  const view = obj(raw);
  if (view?.type !== "modal") return ["view.type must be modal"];
  plainText(view.title, 24, "view.title", problems);
  if (view.submit !== undefined) plainText(view.submit, 24, "view.submit", problems);
  if (view.close !== undefined) plainText(view.close, 24, "view.close", problems);
  if (typeof view.private_metadata === "string" && view.private_metadata.length > 3_000)
    problems.push("view.private_metadata must be less than 3001 characters");
  if (typeof view.callback_id === "string" && view.callback_id.length > 255)
    problems.push("view.callback_id must be less than 256 characters");
  const blocks = Array.isArray(view.blocks) ? view.blocks : [];
  if (blocks.length > 100) problems.push("view.blocks must hold at most 100 blocks");
  const ids = new Set<string>();
  let inputs = 0;
  blocks.forEach((rawBlock, index) => {
    const block = obj(rawBlock) ?? {};
    const where = `view.blocks[${index}]`;
    if (typeof block.block_id === "string") {
      if (block.block_id.length > 255) problems.push(`${where}.block_id must be less than 256 characters`);
      if (ids.has(block.block_id)) problems.push(`${where}.block_id is repeated`);
      ids.add(block.block_id);
    }
    if (block.type === "section") {
      const text = obj(block.text);
      if (typeof text?.text !== "string" || text.text.length > 3_000) problems.push(`${where}.text must be 1-3000 characters`);
    } else if (block.type === "input") {
      inputs += 1;
      plainText(block.label, 2_000, `${where}.label`, problems);
      if (block.hint !== undefined) plainText(block.hint, 2_000, `${where}.hint`, problems);
      element(block.element, `${where}.element`, problems);
    } else if (block.type !== "context" && block.type !== "divider" && block.type !== "header")
      problems.push(`${where}.type is not allowed in a modal`);
  });
  if (inputs > 0 && view.submit === undefined) problems.push("view.submit is required when the view has input blocks");
  return problems;
}

export function createFakeSlackViews(now: () => number = Date.now): FakeSlackViews {
  const issued = new Map<string, { readonly at: number; used: boolean }>();
  const opened: OpenedView[] = [];
  let count = 0;
  return {
    trigger(issuedAgoMs = 0) {
      const id = `${++count}.1700000000.${Math.random().toString(16).slice(2, 10)}`;
      issued.set(id, { at: now() - issuedAgoMs, used: false });
      return id;
    },
    opened,
    open(args) {
      const triggerId = typeof args.trigger_id === "string" ? args.trigger_id : "";
      const trigger = issued.get(triggerId);
      if (!trigger) return { ok: false, error: "invalid_trigger_id" };
      if (trigger.used) return { ok: false, error: "exchanged_trigger_id" };
      if (now() - trigger.at > TRIGGER_LIFE_MS) return { ok: false, error: "expired_trigger_id" };
      const problems = modalProblems(args.view);
      if (problems.length > 0)
        return { ok: false, error: "invalid_arguments", response_metadata: { messages: problems.map((line) => `[ERROR] ${line}`) } };
      trigger.used = true;
      const view = obj(args.view)!;
      opened.push({ triggerId, view });
      return { ok: true, view: { id: `V0MODAL${opened.length}`, ...view } };
    },
  };
}

type StateValue = Record<string, unknown> & { readonly type: string };

/** What an element holds when the person sends the modal: `typed` (text, or an option's text), else its initial value. */
function stateOf(element: Record<string, unknown>, typed: string | undefined): StateValue {
  const type = String(element.type);
  const listed = Array.isArray(element.options) ? (element.options as Array<Record<string, unknown>>) : [];
  const option = typed === undefined ? undefined : listed.find((each) => obj(each.text)?.text === typed || each.value === typed);
  switch (type) {
    case "static_select":
    case "radio_buttons":
      return { type, selected_option: option ?? element.initial_option ?? null };
    case "multi_static_select":
    case "checkboxes":
      return { type, selected_options: option ? [option] : (element.initial_options ?? []) };
    default:
      return { type, value: typed ?? (typeof element.initial_value === "string" ? element.initial_value : null) };
  }
}

/**
 * A modal's state as Slack sends it with view_submission: by block and action id, what the person
 * typed into the inputs named by their label (`typed`), and every other input as the modal showed it.
 */
export function submittedValues(view: Record<string, unknown>, typed: Readonly<Record<string, string>>) {
  const blocks = Array.isArray(view.blocks) ? (view.blocks as Array<Record<string, unknown>>) : [];
  const inputs = blocks.filter((block) => block.type === "input" && typeof block.block_id === "string");
  return Object.fromEntries(
    inputs.map((block) => {
      const element = obj(block.element) ?? {};
      const label = String(obj(block.label)?.text ?? "");
      return [block.block_id as string, { [String(element.action_id)]: stateOf(element, typed[label]) }];
    }),
  );
}
