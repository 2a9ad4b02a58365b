// An MCP server's `elicitation/create`, as the product asks it: a form request's schema checked
// and turned into flat fields (strings, numbers, booleans, single-choice enums, with defaults),
// a URL request into a link, and the person's answer into the result the spec defines. Anything
// else is refused with an error that says what, so the server can tell why.
import { ErrorCode, McpError, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { plainValues } from "../../contracts/forms.js";
import type { FormAnswer, FormField, FormQuestion } from "../../contracts/types.js";

/** More fields than a chat form holds well; a server that needs more asks in steps. */
export const MAX_FORM_FIELDS = 20;
const MAX_MESSAGE_CHARS = 2_000;
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

const text = (max: number) => z.string().max(max);
const common = { title: text(200).optional(), description: text(500).optional() };
const StringField = z.strictObject({
  type: z.literal("string"),
  ...common,
  minLength: z.number().int().nonnegative().optional(),
  maxLength: z.number().int().positive().max(4_000).optional(),
  format: z.enum(["email", "uri", "date", "date-time"]).optional(),
  default: text(4_000).optional(),
});
const EnumField = z.strictObject({
  type: z.literal("string"),
  ...common,
  enum: z.array(text(100)).min(1).max(100),
  enumNames: z.array(text(100)).optional(),
  default: text(100).optional(),
});
const TitledEnumField = z.strictObject({
  type: z.literal("string"),
  ...common,
  oneOf: z
    .array(z.strictObject({ const: text(100), title: text(100) }))
    .min(1)
    .max(100),
  default: text(100).optional(),
});
const NumberField = z.strictObject({
  type: z.enum(["number", "integer"]),
  ...common,
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  default: z.number().optional(),
});
const MultiField = z.strictObject({
  type: z.literal("array"),
  ...common,
  minItems: z.number().int().nonnegative().optional(),
  maxItems: z.number().int().positive().optional(),
  items: z.union([
    z.strictObject({ type: z.literal("string"), enum: z.array(text(100)).min(1).max(100) }),
    z.strictObject({
      anyOf: z
        .array(z.strictObject({ const: text(100), title: text(100) }))
        .min(1)
        .max(100),
    }),
  ]),
  default: z.array(text(100)).optional(),
});
const BooleanField = z.strictObject({ type: z.literal("boolean"), ...common, default: z.boolean().optional() });
const FormSchema = z.object({
  type: z.literal("object"),
  properties: z.record(z.string(), z.unknown()),
  required: z.array(z.string()).optional(),
});

export type FieldsResult = { readonly ok: true; readonly fields: readonly FormField[] } | { readonly ok: false; readonly reason: string };

function fieldOf(name: string, raw: unknown, required: boolean): FormField | string {
  const base = (parsed: { title?: string; description?: string }) => ({
    name,
    label: parsed.title ?? name,
    ...(parsed.description ? { description: parsed.description } : {}),
    required,
  });
  const type = typeof raw === "object" && raw !== null ? (raw as { type?: unknown }).type : undefined;
  if (type === "boolean") {
    const parsed = BooleanField.safeParse(raw);
    return parsed.success ? { kind: "boolean", ...base(parsed.data), ...pick(parsed.data, "default") } : issue(parsed.error);
  }
  if (type === "number" || type === "integer") {
    const parsed = NumberField.safeParse(raw);
    if (!parsed.success) return issue(parsed.error);
    const { minimum, maximum } = parsed.data;
    if (minimum !== undefined && maximum !== undefined && minimum > maximum) return "minimum is above maximum";
    const fallback = parsed.data.default;
    if (fallback !== undefined && ((minimum !== undefined && fallback < minimum) || (maximum !== undefined && fallback > maximum)))
      return "its default is outside its bounds";
    if (fallback !== undefined && parsed.data.type === "integer" && !Number.isInteger(fallback)) return "its default is not a whole number";
    return {
      kind: "number",
      integer: parsed.data.type === "integer",
      ...base(parsed.data),
      ...pick(parsed.data, "default", "minimum", "maximum"),
    };
  }
  if (type === "string" && typeof raw === "object" && raw !== null && ("enum" in raw || "oneOf" in raw)) {
    const titled = TitledEnumField.safeParse(raw);
    const plain = EnumField.safeParse(raw);
    if (!titled.success && !plain.success) return issue("oneOf" in raw ? titled.error! : plain.error!);
    const options = titled.success
      ? titled.data.oneOf.map((option) => ({ value: option.const, label: option.title }))
      : plain.data!.enum.map((value, index) => ({ value, label: plain.data!.enumNames?.[index] ?? value }));
    const data = titled.success ? titled.data : plain.data!;
    if (new Set(options.map((option) => option.value)).size !== options.length) return "its choices repeat";
    if (data.default !== undefined && !options.some((option) => option.value === data.default))
      return "its default is not one of its choices";
    return { kind: "choice", ...base(data), options, ...pick(data, "default") };
  }
  if (type === "string") {
    const parsed = StringField.safeParse(raw);
    if (parsed.success) {
      const { minLength, maxLength, default: fallback } = parsed.data;
      if (minLength !== undefined && maxLength !== undefined && minLength > maxLength) return "minLength is above maxLength";
      if (fallback !== undefined && maxLength !== undefined && fallback.length > maxLength) return "its default is longer than maxLength";
    }
    return parsed.success
      ? { kind: "text", ...base(parsed.data), ...pick(parsed.data, "default", "minLength", "maxLength", "format") }
      : issue(parsed.error);
  }
  if (type === "array") {
    const parsed = MultiField.safeParse(raw);
    if (!parsed.success) return issue(parsed.error);
    const { items, minItems, maxItems, default: fallback } = parsed.data;
    const options =
      "enum" in items
        ? items.enum.map((value) => ({ value, label: value }))
        : items.anyOf.map((option) => ({ value: option.const, label: option.title }));
    if (new Set(options.map((option) => option.value)).size !== options.length) return "its choices repeat";
    if (minItems !== undefined && maxItems !== undefined && minItems > maxItems) return "minItems is above maxItems";
    if (fallback?.some((value) => !options.some((option) => option.value === value))) return "its default is not among its choices";
    return { kind: "choices", ...base(parsed.data), options, ...pick(parsed.data, "default", "minItems", "maxItems") };
  }
  return `type ${JSON.stringify(type ?? null)} is not a string, number, integer or boolean`;
}

function pick<T extends object, K extends keyof T>(value: T, ...keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (value[key] !== undefined) out[key] = value[key];
  return out;
}

function issue(error: z.ZodError): string {
  const first = error.issues[0];
  if (!first) return "it is not valid";
  if (first.code === "unrecognized_keys") return `unsupported keyword ${first.keys.map((key) => `"${key}"`).join(", ")}`;
  return `${first.path.length > 0 ? `${first.path.join(".")}: ` : ""}${first.message}`;
}

/** The form's fields, or why the schema is not a flat form this client shows. */
export function formFields(schema: unknown): FieldsResult {
  const parsed = FormSchema.safeParse(schema);
  if (!parsed.success) return { ok: false, reason: "requestedSchema must be an object schema with properties" };
  const entries = Object.entries(parsed.data.properties);
  if (entries.length === 0) return { ok: false, reason: "the form has no fields" };
  if (entries.length > MAX_FORM_FIELDS)
    return { ok: false, reason: `the form has ${entries.length} fields; at most ${MAX_FORM_FIELDS} are shown` };
  const required = new Set(parsed.data.required ?? []);
  for (const name of required)
    if (!(name in parsed.data.properties)) return { ok: false, reason: `required field "${name}" is not among the properties` };
  const fields: FormField[] = [];
  for (const [name, raw] of entries) {
    if (!NAME.test(name))
      return { ok: false, reason: `field name ${JSON.stringify(name.slice(0, 80))} is not 1-64 letters, digits, _ . -` };
    const field = fieldOf(name, raw, required.has(name));
    if (typeof field === "string") return { ok: false, reason: `field "${name}": ${field}` };
    fields.push(field);
  }
  return { ok: true, fields };
}

/** The question to put to the person, or a refusal the server receives as an InvalidParams error. */
export function questionOf(server: string, request: ElicitRequest): FormQuestion {
  const { params } = request;
  const message = params.message.slice(0, MAX_MESSAGE_CHARS);
  if (params.mode === "url") {
    let url: URL;
    try {
      url = new URL(params.url);
    } catch {
      throw new McpError(ErrorCode.InvalidParams, "elicitation refused: the url is not a valid URL");
    }
    if (url.protocol !== "https:" && url.protocol !== "http:")
      throw new McpError(ErrorCode.InvalidParams, "elicitation refused: only http and https links are shown");
    return { kind: "url", server, message, url: url.href };
  }
  const fields = formFields(params.requestedSchema);
  if (!fields.ok) throw new McpError(ErrorCode.InvalidParams, `elicitation refused: ${fields.reason}`);
  return { kind: "form", server, message, fields: fields.fields };
}

/** The person's answer as the spec has it: content only with accept. */
export function resultOf(answer: FormAnswer): ElicitResult {
  if (answer.action === "accept") return { action: "accept", content: plainValues(answer.values) };
  return { action: answer.action };
}
