// A question a tool puts to the run's requester in the middle of a call (an MCP server's
// elicitation): a flat form or a link to open, what became of it, and the pending form as the
// surfaces show it. Neutral words: nothing here knows MCP, a store or a platform.

interface FieldBase {
  /** The key the answer is sent back under. */
  readonly name: string;
  /** What the person reads: the schema's title, else the name. */
  readonly label: string;
  readonly description?: string;
  readonly required: boolean;
}

export type FormField =
  | (FieldBase & {
      readonly kind: "text";
      readonly default?: string;
      readonly minLength?: number;
      readonly maxLength?: number;
      readonly format?: "email" | "uri" | "date" | "date-time";
    })
  | (FieldBase & {
      readonly kind: "number";
      readonly integer: boolean;
      readonly default?: number;
      readonly minimum?: number;
      readonly maximum?: number;
    })
  | (FieldBase & { readonly kind: "boolean"; readonly default?: boolean })
  | (FieldBase & {
      readonly kind: "choice";
      readonly options: readonly { readonly value: string; readonly label: string }[];
      readonly default?: string;
    })
  /** Several of the options (a multi-select enum). */
  | (FieldBase & {
      readonly kind: "choices";
      readonly options: readonly { readonly value: string; readonly label: string }[];
      readonly default?: readonly string[];
      readonly minItems?: number;
      readonly maxItems?: number;
    });

/** The person who answered (a Person of types.ts; written out here so this file imports nothing). */
export interface FormPerson {
  readonly id: string;
  readonly name?: string;
}

export type FormValue = string | number | boolean | readonly string[];
export type FormValues = Readonly<Record<string, FormValue>>;

export const isList = (value: unknown): value is readonly string[] => Array.isArray(value);

/** The values as plain JSON (lists copied), for a store record or a protocol message. */
export function plainValues(values: FormValues): Record<string, string | number | boolean | string[]> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, isList(value) ? [...value] : value]));
}

/** What a tool asks: a form to fill in, or a page to open (the answer then comes to the tool's server, not to us). */
export type FormQuestion =
  | { readonly kind: "form"; readonly server: string; readonly message: string; readonly fields: readonly FormField[] }
  | { readonly kind: "url"; readonly server: string; readonly message: string; readonly url: string };

/** Why a form was cancelled without the person choosing. */
/** `withdrawn`: the server took its question back (it cancelled the request, or its call ended). */
export type CancelReason = "dismissed" | "timeout" | "stopped" | "unavailable" | "withdrawn";

/** How a question ended, as the tool's server hears it: `accept` with the values (defaults applied), `decline`, or `cancel`. */
export type FormAnswer =
  | { readonly action: "accept"; readonly values: FormValues; readonly by: FormPerson }
  | { readonly action: "decline"; readonly by: FormPerson }
  | { readonly action: "cancel"; readonly reason: CancelReason; readonly by?: FormPerson };

/**
 * What a tool calls to ask: resolves with the answer, never rejects (a form nobody can answer is a cancel).
 * `withdrawn` aborts when the asker no longer wants the answer: the form closes as withdrawn.
 */
export type AskPerson = (question: FormQuestion, withdrawn?: AbortSignal) => Promise<FormAnswer>;
