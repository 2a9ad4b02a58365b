// What tokens cost: the default table plus MODEL_PRICES, looked up by model name (a dated
// snapshot such as gpt-4o-2024-08-06 takes its model's price), plus the prices the settings file
// gives an endpoint (`<model>@<base URL>`: another provider may charge otherwise for the same
// model); an endpoint without its own is priced by its model. A model without a price has an
// unknown cost; a sum that includes one says how much is unpriced.
import { z } from "zod";
import { endpointName, endpointParts } from "../contracts/model-endpoint.js";
import { DEFAULT_PRICES, type ModelPrice } from "./price-table.js";

const perMillion = z.number({ error: "expects a price in dollars per million tokens" }).finite().nonnegative().max(10_000);

/** MODEL_PRICES: {"model": {"input": 0.5, "cached": 0.25, "output": 1.5}, …}; `cached` defaults to `input`. */
export const ModelPricesSchema = z.record(
  z.string().trim().min(1).max(200),
  z.strictObject({ input: perMillion, cached: perMillion.optional(), output: perMillion }),
);

/** The MODEL_PRICES variable: that JSON as text. */
export const ModelPricesVariable = z
  .string()
  .transform((value, context) => {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      context.addIssue({
        code: "custom",
        message: 'expects JSON like {"model": {"input": 0.5, "cached": 0.25, "output": 1.5}} (dollars per million tokens)',
      });
      return z.NEVER;
    }
  })
  .pipe(ModelPricesSchema);

export type PriceTable = ReadonlyMap<string, ModelPrice>;

type ConfiguredPrice = z.infer<typeof ModelPricesSchema>[string];

/** The settings file's `models` section, as far as prices go. */
export type EndpointPrices = Readonly<Record<string, { readonly prices?: ConfiguredPrice }>>;

/** The defaults with MODEL_PRICES over them, and the endpoints' own prices under their names. */
export function priceTable(configured: z.infer<typeof ModelPricesSchema> = {}, endpoints: EndpointPrices = {}): PriceTable {
  const table = new Map(Object.entries(DEFAULT_PRICES));
  const set = (name: string, price: ConfiguredPrice) =>
    table.set(name, { input: price.input, cached: price.cached ?? price.input, output: price.output });
  for (const [model, price] of Object.entries(configured)) set(model, price);
  for (const [key, { prices }] of Object.entries(endpoints)) {
    const { model, server } = endpointParts(key);
    if (prices && server !== undefined) set(endpointName(model, server), prices);
  }
  return table;
}

const DATED_SNAPSHOT = /-\d{4}-\d{2}-\d{2}$/;

/** `model`: a model's name, or an endpoint's (`<model>@<base URL>`), priced by its own entry, else by its model's. */
export function priceOf(table: PriceTable, model: string): ModelPrice | undefined {
  const own = table.get(model);
  if (own) return own;
  const bare = endpointParts(model).model;
  return table.get(bare) ?? table.get(bare.replace(DATED_SNAPSHOT, ""));
}

/** The name an endpoint's tokens are counted and priced under: its own when it has a price of its own, else its model's. */
export function pricedName(table: PriceTable, endpoint: string): string {
  return table.has(endpoint) ? endpoint : endpointParts(endpoint).model;
}

export interface Tokens {
  readonly prompt: number;
  /** Of the prompt tokens, those read from the server's prompt cache. */
  readonly cached: number;
  readonly completion: number;
}

/** Dollars, or undefined when the model has no price. */
export function costOf(table: PriceTable, model: string, tokens: Tokens): number | undefined {
  const price = priceOf(table, model);
  if (!price) return undefined;
  const cached = Math.min(tokens.cached, tokens.prompt);
  return ((tokens.prompt - cached) * price.input + cached * price.cached + tokens.completion * price.output) / 1_000_000;
}

export interface CostSum {
  /** Dollars for the tokens of priced models. */
  readonly dollars: number;
  /** Tokens of models without a price (their cost is unknown). */
  readonly unpricedTokens: number;
  readonly unpricedModels: readonly string[];
}

export const NO_COST: CostSum = { dollars: 0, unpricedTokens: 0, unpricedModels: [] };

export function addCost(sum: CostSum, table: PriceTable, model: string, tokens: Tokens): CostSum {
  const dollars = costOf(table, model, tokens);
  if (dollars !== undefined) return { ...sum, dollars: sum.dollars + dollars };
  const unpriced = tokens.prompt + tokens.completion;
  if (unpriced === 0) return sum;
  return {
    dollars: sum.dollars,
    unpricedTokens: sum.unpricedTokens + unpriced,
    unpricedModels: sum.unpricedModels.includes(model) ? sum.unpricedModels : [...sum.unpricedModels, model],
  };
}

/** "$0.0123", "$1.23 + cost unknown for 4,000 tokens (llama3)", or "cost unknown (llama3)". */
export function costText(sum: CostSum): string {
  const unknown =
    sum.unpricedTokens > 0
      ? `cost unknown for ${sum.unpricedTokens.toLocaleString("en-US")} tokens (${sum.unpricedModels.join(", ")})`
      : undefined;
  if (unknown && sum.dollars === 0) return `cost unknown (${sum.unpricedModels.join(", ")})`;
  const dollars = dollarText(sum.dollars);
  return unknown ? `${dollars} + ${unknown}` : dollars;
}

export function dollarText(dollars: number): string {
  if (dollars === 0) return "$0";
  if (dollars < 0.01) return `$${dollars.toFixed(4)}`;
  return `$${dollars.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}
