// Discord's modals as strict as Discord: a modal is the first answer to a click or a command,
// within 3 seconds (fake-discord-messages.ts), and is refused with 50035 Invalid Form Body when it
// breaks a limit (custom id 100 characters, title 45, 1 to 5 components, a label's text 45 and its
// description 100, a text input's value and lengths 4,000, a select's 1 to 25 options of 100
// characters, a default that is not an option). What the person sends back is built as Discord
// builds a MODAL_SUBMIT's components: each label with its component and the value it holds.

export interface OpenedModal {
  /** The token of the interaction the modal answered. */
  readonly token: string;
  readonly data: { readonly custom_id: string; readonly title: string; readonly components: readonly Record<string, any>[] };
}

/** A person's entries by custom id: text for a text input, true/false for a checkbox, the chosen values of a select. */
export type ModalEntries = Readonly<Record<string, string | boolean | readonly string[]>>;

const TEXT_INPUT = 4;
const STRING_SELECT = 3;
const TEXT_DISPLAY = 10;
const LABEL = 18;
const CHECKBOX_GROUP = 22;
const CHECKBOX = 23;

const text = (value: unknown): value is string => typeof value === "string";

function componentProblems(component: Record<string, any> | undefined, where: string, problems: string[]): void {
  if (!component) return void problems.push(`${where}: a label holds one component`);
  if (!text(component.custom_id) || component.custom_id.length === 0 || component.custom_id.length > 100)
    problems.push(`${where}.custom_id: 1-100 characters`);
  if (component.type === TEXT_INPUT) {
    if (component.style !== 1 && component.style !== 2) problems.push(`${where}.style: 1 or 2`);
    const max = component.max_length ?? 4_000;
    if (max < 1 || max > 4_000) problems.push(`${where}.max_length: 1-4000`);
    if ((component.min_length ?? 0) > max) problems.push(`${where}.min_length: at most max_length`);
    if (text(component.value) && component.value.length > max) problems.push(`${where}.value: longer than max_length`);
    if (text(component.placeholder) && component.placeholder.length > 100) problems.push(`${where}.placeholder: at most 100 characters`);
    if ("label" in component) problems.push(`${where}.label: a text input inside a label has no label of its own`);
  } else if (component.type === STRING_SELECT || component.type === CHECKBOX_GROUP) {
    const most = component.type === STRING_SELECT ? 25 : 10;
    const options: Record<string, any>[] = Array.isArray(component.options) ? component.options : [];
    if (options.length === 0 || options.length > most) problems.push(`${where}.options: 1-${most} options`);
    const [min, max] = [component.min_values ?? (component.type === STRING_SELECT ? 1 : 1), component.max_values ?? options.length];
    if (min < 0 || max < 1 || min > max || max > options.length) problems.push(`${where}: min_values and max_values must fit the options`);
    const values = new Set<string>();
    for (const [index, option] of options.entries()) {
      if (!text(option.label) || option.label.length === 0 || option.label.length > 100)
        problems.push(`${where}.options[${index}].label: 1-100 characters`);
      if (!text(option.value) || option.value.length === 0 || option.value.length > 100)
        problems.push(`${where}.options[${index}].value: 1-100 characters`);
      else if (values.has(option.value)) problems.push(`${where}.options[${index}].value: repeated`);
      else values.add(option.value);
    }
    if (options.filter((option) => option.default === true).length > (component.max_values ?? 1))
      problems.push(`${where}: more defaults than max_values`);
  } else if (component.type !== CHECKBOX) problems.push(`${where}.type: ${String(component.type)} is not a modal input`);
}

/** Why Discord would refuse this modal (none: it opens). */
export function modalProblems(data: Record<string, any> | undefined): string[] {
  const problems: string[] = [];
  if (!data) return ["data: required"];
  if (!text(data.custom_id) || data.custom_id.length === 0 || data.custom_id.length > 100) problems.push("custom_id: 1-100 characters");
  if (!text(data.title) || data.title.length === 0 || data.title.length > 45) problems.push("title: 1-45 characters");
  const components: Record<string, any>[] = Array.isArray(data.components) ? data.components : [];
  if (components.length === 0 || components.length > 5) problems.push("components: 1-5 components");
  const ids = new Set<string>();
  for (const [index, component] of components.entries()) {
    const where = `components[${index}]`;
    if (component.type === TEXT_DISPLAY) {
      if (!text(component.content) || component.content.length > 4_000) problems.push(`${where}.content: at most 4000 characters`);
      continue;
    }
    if (component.type !== LABEL) {
      problems.push(`${where}.type: a label or a text display`);
      continue;
    }
    if (!text(component.label) || component.label.length === 0 || component.label.length > 45)
      problems.push(`${where}.label: 1-45 characters`);
    if (component.description !== undefined && (!text(component.description) || component.description.length > 100))
      problems.push(`${where}.description: at most 100 characters`);
    componentProblems(component.component, `${where}.component`, problems);
    const id = component.component?.custom_id;
    if (text(id) && ids.has(id)) problems.push(`${where}.component.custom_id: repeated`);
    if (text(id)) ids.add(id);
  }
  return problems;
}

/** The MODAL_SUBMIT data a person's entries make: what they did not touch keeps the modal's preset value. */
export function submittedData(modal: OpenedModal["data"], entries: ModalEntries): Record<string, unknown> {
  let id = 0;
  const components = modal.components.map((component) => {
    if (component.type !== LABEL) return { type: component.type, id: ++id };
    const inner = component.component as Record<string, any>;
    const given = entries[inner.custom_id];
    const base = { type: inner.type, id: ++id, custom_id: inner.custom_id };
    const filled =
      inner.type === CHECKBOX
        ? { ...base, value: typeof given === "boolean" ? given : inner.default === true }
        : inner.type === STRING_SELECT || inner.type === CHECKBOX_GROUP
          ? {
              ...base,
              values: Array.isArray(given)
                ? given
                : (inner.options as Record<string, any>[]).filter((option) => option.default === true).map((option) => option.value),
            }
          : { ...base, value: typeof given === "string" ? given : (inner.value ?? "") };
    return { type: LABEL, id: ++id, component: filled };
  });
  return { custom_id: modal.custom_id, components };
}
