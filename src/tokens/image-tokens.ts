// What an image costs in the context window, by OpenAI's tile rule for the gpt-4o family (high
// detail): fit within 2048×2048, scale the shortest side down to 768, then a base plus a price
// per 512-px tile. gpt-4o-mini bills the same tiles at its own (higher) price. Every other model
// is counted with the gpt-4o figures as a stated estimate: local vision models spend a similar
// few hundred to a thousand tokens on an image of this size.
export interface ImageTokenRule {
  readonly base: number;
  readonly perTile: number;
}

const GPT_4O_RULE: ImageTokenRule = { base: 85, perTile: 170 };
const GPT_4O_MINI_RULE: ImageTokenRule = { base: 2_833, perTile: 5_667 };

const FIT_SIDE = 2_048;
const SHORT_SIDE = 768;
const TILE = 512;

export function imageTokenRule(model: string): ImageTokenRule {
  const bare = model.toLowerCase().split("/").pop() ?? "";
  return /^gpt-4o-mini/.test(bare) ? GPT_4O_MINI_RULE : GPT_4O_RULE;
}

/** The 512-px tiles of an image of this size after OpenAI's two scalings (never scaled up). */
export function imageTiles(width: number, height: number): number {
  let w = Math.max(1, width);
  let h = Math.max(1, height);
  const fit = Math.min(1, FIT_SIDE / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shorten = Math.min(1, SHORT_SIDE / Math.min(w, h));
  w *= shorten;
  h *= shorten;
  return Math.ceil(w / TILE) * Math.ceil(h / TILE);
}

export function imageTokens(width: number, height: number, rule: ImageTokenRule): number {
  return rule.base + rule.perTile * imageTiles(width, height);
}
