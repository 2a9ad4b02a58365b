// A person's answer to a form, as a surface read it (text boxes give strings, checkboxes
// booleans; nothing given is undefined), checked against the form's fields: the schema's
// defaults fill what was left empty, and every problem is named so the person can fix it.
import { isList } from "../../contracts/forms.js";
import type { FormField, FormValue, FormValues } from "../../contracts/types.js";

/** What a surface read: text, a checkbox, the chosen values of a select or checkboxes; undefined when nothing was given. */
export type FormInput = string | boolean | readonly string[] | undefined;

export type ReadValues =
  | { readonly ok: true; readonly values: FormValues }
  /** `problems` in words ("People is above 12"), `fields` each field's own ("is above 12") by name. */
  | { readonly ok: false; readonly problems: readonly string[]; readonly fields: Readonly<Record<string, string>> };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function formatProblem(field: Extract<FormField, { kind: "text" }>, value: string): string | undefined {
  switch (field.format) {
    case "email":
      return EMAIL.test(value) ? undefined : "is not an email address";
    case "uri":
      return URL.canParse(value) ? undefined : "is not a link (URI)";
    case "date":
      return DATE.test(value) && !Number.isNaN(Date.parse(value)) ? undefined : "is not a date (YYYY-MM-DD)";
    case "date-time":
      return Number.isNaN(Date.parse(value)) ? "is not a date and time" : undefined;
    default:
      return undefined;
  }
}

/** A value for `field`, or why not; undefined: nothing given and no default (fine unless required). */
function fieldValue(field: FormField, input: FormInput): { value?: FormValue; problem?: string } {
  const trimmed = typeof input === "string" ? input.trim() : input;
  // A list is what the person left checked or selected (none checked is an answer); only a single select with nothing picked is empty.
  const given = isList(trimmed) && trimmed.length === 0 && field.kind === "choice" ? undefined : trimmed;
  if (given === undefined || given === "") {
    if (field.default !== undefined) return { value: field.default };
    if (field.kind === "boolean" && field.required) return { value: false };
    return field.required ? { problem: "is required" } : {};
  }
  switch (field.kind) {
    case "boolean":
      if (typeof given === "boolean") return { value: given };
      // A checkbox read as the values checked: its one option is "true".
      if (isList(given)) return { value: given.includes("true") };
      if (/^(y|yes|true|1)$/i.test(given)) return { value: true };
      if (/^(n|no|false|0)$/i.test(given)) return { value: false };
      return { problem: "takes yes or no" };
    case "number": {
      const number = typeof given === "string" ? Number(given.replace(",", ".")) : Number.NaN;
      if (!Number.isFinite(number)) return { problem: "is not a number" };
      if (field.integer && !Number.isInteger(number)) return { problem: "takes a whole number" };
      if (field.minimum !== undefined && number < field.minimum) return { problem: `is below ${field.minimum}` };
      if (field.maximum !== undefined && number > field.maximum) return { problem: `is above ${field.maximum}` };
      return { value: number };
    }
    case "choices":
      return choicesOf(field, given);
    case "choice": {
      const text = String(isList(given) ? given[0] : given);
      const option = field.options.find((choice) => choice.value === text) ?? field.options.find((choice) => choice.label === text);
      return option ? { value: option.value } : { problem: `is not one of ${field.options.map((choice) => choice.label).join(", ")}` };
    }
    case "text": {
      const text = String(given);
      if (field.minLength !== undefined && text.length < field.minLength)
        return { problem: `needs at least ${field.minLength} characters` };
      if (field.maxLength !== undefined && text.length > field.maxLength) return { problem: `takes at most ${field.maxLength} characters` };
      const problem = formatProblem(field, text);
      return problem ? { problem } : { value: text };
    }
  }
}

/** Each chosen option (by value, label, or a list of them separated by commas), within the bounds. */
function choicesOf(
  field: Extract<FormField, { kind: "choices" }>,
  given: string | boolean | readonly string[],
): { value?: FormValue; problem?: string } {
  const picked = isList(given)
    ? given
    : String(given)
        .split(",")
        .map((part) => part.trim())
        .filter(Boolean);
  const values: string[] = [];
  for (const each of picked) {
    const option = field.options.find((choice) => choice.value === each) ?? field.options.find((choice) => choice.label === each);
    if (!option)
      return { problem: `has ${JSON.stringify(each)}, which is not one of ${field.options.map((choice) => choice.label).join(", ")}` };
    if (!values.includes(option.value)) values.push(option.value);
  }
  if (values.length === 0 && field.required) return { problem: "is required" };
  if (field.minItems !== undefined && values.length < field.minItems) return { problem: `needs at least ${field.minItems} choices` };
  if (field.maxItems !== undefined && values.length > field.maxItems) return { problem: `takes at most ${field.maxItems} choices` };
  return { value: values };
}

/** The values to send, defaults applied; or each field's problem. Inputs for names the form does not have are ignored. */
export function readValues(fields: readonly FormField[], inputs: Readonly<Record<string, FormInput>>): ReadValues {
  const values: Record<string, FormValue> = {};
  const problems: string[] = [];
  const byField: Record<string, string> = {};
  for (const field of fields) {
    const read = fieldValue(field, Object.hasOwn(inputs, field.name) ? inputs[field.name] : undefined);
    if (read.problem) {
      problems.push(`${field.label} ${read.problem}`);
      byField[field.name] = `${field.label} ${read.problem}`;
    } else if (read.value !== undefined) values[field.name] = read.value;
  }
  return problems.length > 0 ? { ok: false, problems, fields: byField } : { ok: true, values };
}

/** What a field takes when left empty, in words for a prompt or a placeholder. */
export function defaultText(field: FormField): string | undefined {
  if (field.default === undefined) return undefined;
  if (field.kind === "boolean") return field.default ? "yes" : "no";
  if (field.kind === "choice") return field.options.find((option) => option.value === field.default)?.label ?? field.default;
  if (field.kind === "choices")
    return field.default.map((value) => field.options.find((option) => option.value === value)?.label ?? value).join(", ");
  return String(field.default);
}
