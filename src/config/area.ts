// An area of the configuration: a titled group of variables (one table in
// docs/configuration.md) and how its values take their place in Config. An area's fields are
// the keys it gives its variables; its shape, when it has one, nests or combines them.
import type { Variable, ValueOf } from "./variable.js";

export type Variables = Readonly<Record<string, Variable>>;

/** Flattens an intersection for readable hovers; keeps `readonly` and `?`. */
export type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** An area's values by field; a variable with no default is an optional field. */
export type ValuesOf<V extends Variables> = Simplify<
  { readonly [K in keyof V as undefined extends ValueOf<V[K]> ? never : K]: ValueOf<V[K]> } & {
    readonly [K in keyof V as undefined extends ValueOf<V[K]> ? K : never]?: Exclude<ValueOf<V[K]>, undefined>;
  }
>;

/** The parsed environment, by variable name. */
export type ParsedEnv = Readonly<Record<string, unknown>>;

export interface Area<V extends Variables = Variables, Out = unknown> {
  readonly title: string;
  /** A sentence or two above the area's table. */
  readonly about: string;
  readonly variables: V;
  /** Variables another area declares that this one reads too (the docs name them under the table). */
  readonly uses: readonly Variable[];
  /** Its part of Config. */
  read(env: ParsedEnv): Out;
}

interface AreaText {
  readonly title: string;
  readonly about: string;
}

function valuesOf(variables: Variables, env: ParsedEnv): Record<string, unknown> {
  return Object.fromEntries(Object.entries(variables).map(([field, variable]) => [field, env[variable.name]]));
}

export function area<V extends Variables, Out, U extends Variables = Record<never, Variable>>(
  definition: AreaText & { readonly variables: V; readonly uses?: U; readonly shape: (values: ValuesOf<V & U>) => Out },
): Area<V, Out>;
/** Without a shape, the area's fields are Config's own (top-level) fields. */
export function area<V extends Variables>(definition: AreaText & { readonly variables: V }): Area<V, ValuesOf<V>>;
export function area(
  definition: AreaText & { readonly variables: Variables; readonly uses?: Variables; readonly shape?: (values: never) => unknown },
): Area {
  const { title, about, variables, uses = {} } = definition;
  const shape = (definition.shape ?? ((values: unknown) => values)) as (values: Record<string, unknown>) => unknown;
  const read = { ...variables, ...uses };
  return { title, about, variables, uses: Object.values(uses), read: (env) => shape(valuesOf(read, env)) };
}

/** `{ [key]: value }`, or `{}` when value is undefined: a part of Config that is off is absent. */
export function optionalPart<const K extends string, T>(key: K, value: T | undefined): { readonly [P in K]?: T } {
  return (value === undefined ? {} : { [key]: value }) as { readonly [P in K]?: T };
}
