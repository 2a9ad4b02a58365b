// One environment variable, declared once: its name, its kind of value (range inside), its
// default and what it means. The loader, the Config type and docs/configuration.md are derived
// from these declarations; nothing else lists a variable.
import type { z } from "zod";
import type { ValueType } from "./values.js";

export interface VariableDoc {
  /** One line for the docs: what the variable does, not how it is checked. */
  readonly meaning: string;
  /** The docs' default when the declared one says too little (e.g. "by model", "`mcp.json` when present"). */
  readonly shownDefault?: string;
  /** Never echoed in an error message. */
  readonly secret?: boolean;
}

export interface Variable<Name extends string = string, Schema extends z.ZodType = z.ZodType> {
  readonly name: Name;
  readonly schema: Schema;
  readonly meaning: string;
  /** As the docs show it; "" when the meaning says it. */
  readonly range: string;
  /** As the docs show it; "—" for none. */
  readonly shownDefault: string;
  readonly secret: boolean;
}

/** What a variable holds after parsing (undefined when it has no default and is unset). */
export type ValueOf<V> = V extends Variable<string, infer Schema> ? z.output<Schema> : never;

function defaultText(value: unknown): string {
  return value === "" ? "—" : `\`${String(value)}\``;
}

/**
 * A default is written as the environment would hold it, and parsed like a set value (so
 * `"yes"` becomes true and a path is resolved the same way either way).
 */
export function variable<const Name extends string, Schema extends z.ZodType>(
  name: Name,
  type: ValueType<Schema>,
  doc: VariableDoc & { readonly default: z.input<Schema> },
): Variable<Name, z.ZodPrefault<Schema>>;
export function variable<const Name extends string, Schema extends z.ZodType>(
  name: Name,
  type: ValueType<Schema>,
  doc: VariableDoc,
): Variable<Name, z.ZodOptional<Schema>>;
export function variable(name: string, type: ValueType, doc: VariableDoc & { readonly default?: unknown }): Variable {
  const hasDefault = "default" in doc;
  return {
    name,
    schema: hasDefault ? type.schema.prefault(doc.default) : type.schema.optional(),
    meaning: doc.meaning,
    range: type.range,
    shownDefault: doc.shownDefault ?? (hasDefault ? defaultText(doc.default) : "—"),
    secret: doc.secret === true,
  };
}
