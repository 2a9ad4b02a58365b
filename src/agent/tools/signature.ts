// A call's signature: tool name + hash of its arguments in canonical JSON, so key order and
// whitespace never make two identical calls look different.
import { hash } from "node:crypto";

/** JSON with object keys sorted at every depth. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value as Record<string, unknown>)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Arguments that are not JSON are hashed as their trimmed raw text. One-shot `hash` (not a Hash object): this runs for every call. */
export function callSignature(tool: string, rawArgs: string): string {
  let canonical: string;
  try {
    canonical = canonicalJson(JSON.parse(rawArgs.trim() === "" ? "{}" : rawArgs));
  } catch {
    canonical = `raw:${rawArgs.trim()}`;
  }
  return `${tool}#${hash("sha256", canonical, "hex").slice(0, 16)}`;
}
