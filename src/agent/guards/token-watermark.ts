import type { GuardStop } from "../../contracts/types.js";
import { guardStop } from "./guard-stop.js";

export type Watermark = "green" | "yellow" | "orange" | "red";

const WATERMARKS = { yellow: 0.65, orange: 0.8, red: 0.9 } as const;

/** `budget` is the context window minus the reserved output tokens. */
export function watermark(used: number, budget: number): Watermark {
  const share = used / budget;
  if (share >= WATERMARKS.red) return "red";
  if (share >= WATERMARKS.orange) return "orange";
  if (share >= WATERMARKS.yellow) return "yellow";
  return "green";
}

export function tokenStop(used: number, budget: number): GuardStop {
  const percent = Math.round((used / budget) * 100);
  return guardStop(
    "tokens",
    `${used} of ${budget} usable context tokens (${percent} %)`,
    `Stopped: the conversation filled ${percent} % of the model's context window.`,
  );
}
