// Default prices of the common OpenAI models, in US dollars per million tokens: input, cached
// input (prompt tokens read from OpenAI's prompt cache) and output. Taken from OpenAI's
// published API prices (the pricing page of its platform documentation) as read in August 2025;
// prices change, so MODEL_PRICES overrides any of them and adds others. A model not listed here
// or in MODEL_PRICES has no price: its cost is shown as unknown, never guessed.
export interface ModelPrice {
  readonly input: number;
  readonly cached: number;
  readonly output: number;
}

export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  "gpt-5": { input: 1.25, cached: 0.125, output: 10 },
  "gpt-5-mini": { input: 0.25, cached: 0.025, output: 2 },
  "gpt-5-nano": { input: 0.05, cached: 0.005, output: 0.4 },
  "gpt-4.1": { input: 2, cached: 0.5, output: 8 },
  "gpt-4.1-mini": { input: 0.4, cached: 0.1, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, cached: 0.025, output: 0.4 },
  "gpt-4o": { input: 2.5, cached: 1.25, output: 10 },
  "gpt-4o-mini": { input: 0.15, cached: 0.075, output: 0.6 },
  o3: { input: 2, cached: 0.5, output: 8 },
  "o3-mini": { input: 1.1, cached: 0.55, output: 4.4 },
  "o4-mini": { input: 1.1, cached: 0.275, output: 4.4 },
};
