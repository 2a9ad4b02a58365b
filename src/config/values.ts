// The kinds of value a variable can take: each a zod type with the one-line error a bad value
// gets, and the range the configuration docs show for it, written side by side so they can't
// disagree.
import { z } from "zod";

/** A zod type and how docs/configuration.md writes what it accepts ("" when the meaning says it). */
export interface ValueType<Schema extends z.ZodType = z.ZodType> {
  readonly schema: Schema;
  readonly range: string;
}

/** Any text. */
export const text = (): ValueType<z.ZodString> => ({ schema: z.string(), range: "" });

/** Text that must not be blank once trimmed, e.g. a path or a host name. */
export const nonBlank = (expected: string): ValueType<z.ZodString> => ({ schema: z.string().trim().min(1, expected), range: "" });

/** A whole number within [min, max]; every numeric setting has a range so a typo can't disable a guard. */
export const wholeNumber = (min: number, max: number) => {
  const expected = `expects a whole number from ${min} to ${max}`;
  return { schema: z.coerce.number({ error: expected }).int(expected).min(min, expected).max(max, expected), range: `${min}–${max}` };
};

export const httpUrl = (): ValueType<z.ZodURL> => ({
  schema: z.url({ protocol: /^https?$/, error: "expects an http(s) URL" }),
  range: "http(s) URL",
});

/** At least `length` characters: a secret short enough to guess is refused. */
export const secretText = (length: number): ValueType<z.ZodString> => ({
  schema: z.string().min(length, `expects at least ${length} characters`),
  range: `${length}+ characters`,
});

export const startingWith = (prefix: string, expected: string): ValueType<z.ZodString> => ({
  schema: z.string().startsWith(prefix, expected),
  range: `\`${prefix}…\``,
});

export const numericId = (expected: string): ValueType<z.ZodString> => ({
  schema: z.string().regex(/^\d+$/, expected),
  range: "digits",
});

/** "a or b", "a, b or c"; a longer list reads "one of a, b, c, d". */
function choiceText(values: readonly string[]): string {
  if (values.length > 3) return `one of ${values.join(", ")}`;
  return values.length === 1 ? values[0]! : `${values.slice(0, -1).join(", ")} or ${values.at(-1)}`;
}

export const oneOf = <const Values extends readonly [string, ...string[]]>(values: Values) => ({
  schema: z.enum(values, { error: `expects ${choiceText(values)}` }),
  range: values.map((value) => `\`${value}\``).join(", "),
});

const YES = ["true", "yes", "on", "1"] as const;
const NO = ["false", "no", "off", "0"] as const;

/** yes/no, true/false, on/off or 1/0, in any case. */
export const yesNo = () => ({
  schema: z
    .string()
    .transform((value) => value.trim().toLowerCase())
    .pipe(z.enum([...YES, ...NO], { error: "expects yes or no (true/false, on/off, 1/0)" }))
    .transform((value) => (YES as readonly string[]).includes(value)),
  range: "yes/no",
});

/** Comma-separated ids; blanks between commas are dropped. */
export const idList = () => ({
  schema: z.string().transform((value) =>
    value
      .split(",")
      .map((id) => id.trim())
      .filter((id) => id.length > 0),
  ),
  range: "comma-separated ids",
});

/** `<model>@<http(s) base URL>`, comma-separated; blanks between commas are dropped. */
export const endpointList = () => {
  const expected =
    "expects <model>@<base URL>, comma-separated (e.g. gpt-4o-mini@https://eu.example/v1,llama3.1@http://127.0.0.1:11434/v1)";
  return {
    schema: z.string().transform((value, context) => {
      const entries = value
        .split(",")
        .map((entry) => entry.trim())
        .filter((entry) => entry.length > 0);
      const endpoints: { readonly model: string; readonly baseUrl: string }[] = [];
      for (const entry of entries) {
        const at = entry.search(/@https?:\/\//);
        const model = at > 0 ? entry.slice(0, at).trim() : "";
        const baseUrl = at > 0 ? entry.slice(at + 1) : "";
        if (model === "" || !URL.canParse(baseUrl)) {
          context.addIssue({ code: "custom", message: `${expected}; "${entry}" is not` });
          return z.NEVER;
        }
        endpoints.push({ model, baseUrl });
      }
      return endpoints;
    }),
    range: "`<model>@<URL>,…`",
  };
};
