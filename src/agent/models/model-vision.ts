// Whether a model can see images, by its name, like the context windows in token-counter.ts.
// OPENAI_VISION overrides the table: `on` for a vision model it does not know, `off` to never
// send images. A model without vision gets a note instead of the image, never a guess.
export type VisionSetting = "auto" | "on" | "off";

/** Matched against the name without its provider prefix (`openai/gpt-4o` → `gpt-4o`), in lower case. */
const VISION_MODELS: readonly RegExp[] = [
  /^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-4-turbo|gpt-4-vision)/,
  /^o1(?!-mini|-preview)/,
  /^o3(?!-mini)/,
  /^o4/,
  /llava|bakllava|moondream|minicpm-v|pixtral|vision|(^|[-_.:])vl($|[-_.:\d])/,
  /^(gemma-?3|llama-?4|gemini|claude-3|claude-(opus|sonnet|haiku)-4)/,
];

export function modelSeesImages(model: string, setting: VisionSetting): boolean {
  if (setting !== "auto") return setting === "on";
  const bare = model.toLowerCase().split("/").pop() ?? "";
  return VISION_MODELS.some((pattern) => pattern.test(bare));
}
