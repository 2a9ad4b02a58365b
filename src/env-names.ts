// Names in `.env` that look like one of ours but are not: `SLACK_BOT_TOKN=…` would otherwise
// start console mode without a word. A name counts as a slip when it is within two edits of a
// variable the bot reads, or shares its first word (`SLACK_`, `OPENAI_`) and is within four: a
// name far from all of ours (an MCP server's `GITHUB_TOKEN`) is someone else's and is left alone.
import { AREAS } from "./config/areas.js";

/** Every variable the bot reads, from the declarations in src/config/. */
const KNOWN: readonly string[] = AREAS.flatMap((area) => Object.values(area.variables).map((variable) => variable.name));
const KNOWN_SET = new Set(KNOWN);
/** Read by libraries themselves (OpenTelemetry's SDK reads the whole OTEL_ family). */
const FOREIGN_PREFIXES = ["OTEL_", "NODE_", "npm_"];

export interface NameSlip {
  readonly name: string;
  readonly meant: string;
}

/** The variable `name` most likely stands for, or undefined when it is ours or looks like none of ours. Pure. */
export function likelyMeant(name: string, known: readonly string[] = KNOWN): string | undefined {
  if (KNOWN_SET.has(name) || known.includes(name) || FOREIGN_PREFIXES.some((prefix) => name.startsWith(prefix))) return undefined;
  const upper = name.toUpperCase();
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(upper, candidate);
    const sameFirstWord = upper.split("_")[0] === candidate.split("_")[0];
    if (distance > (sameFirstWord ? 4 : 2) || (best && best.distance <= distance)) continue;
    best = { name: candidate, distance };
  }
  return best?.name;
}

/** The slips among `names`, in their order. */
export function nameSlips(names: Iterable<string>): readonly NameSlip[] {
  return [...names].flatMap((name) => {
    const meant = likelyMeant(name);
    return meant ? [{ name, meant }] : [];
  });
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours each count 1. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = value;
    }
  return rows[a.length]![b.length]!;
}
