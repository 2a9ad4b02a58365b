// What `npm run replay` prints: a line per run that would end differently (or could not be
// replayed), and the totals; or all of it as one JSON document for scripts.
import { dollarText } from "../../cost/prices.js";
import { isGuardTrip } from "../../contracts/guard-trips.js";
import { totalTokens } from "../../memory/run-records/record-schema.js";
import type { EndView, ReplayResult } from "./replay-run.js";

export interface ReplayTotals {
  readonly runs: number;
  readonly replayed: number;
  readonly same: number;
  readonly changed: number;
  readonly diverged: number;
  readonly notReplayable: number;
  /** Over the replayed runs. */
  readonly recorded: { readonly tokens: number; readonly cost: number; readonly steps: number; readonly guardTrips: number };
  readonly replay: { readonly tokens: number; readonly cost: number; readonly steps: number; readonly guardTrips: number };
  /** Runs whose replay ended with each guard (recorded → replayed counts). */
  readonly guards: Readonly<Record<string, { readonly recorded: number; readonly replayed: number }>>;
}

export function replayTotals(results: readonly ReplayResult[]): ReplayTotals {
  const replayed = results.filter((result) => result.kind === "replayed");
  const sum = (pick: (view: EndView) => number, side: "recorded" | "replayed") =>
    replayed.reduce((total, result) => total + pick(result[side]), 0);
  const side = (which: "recorded" | "replayed") => ({
    tokens: sum((view) => totalTokens(view.tokens), which),
    cost: sum((view) => view.cost ?? 0, which),
    steps: sum((view) => view.steps, which),
    guardTrips: replayed.filter((result) => isGuardTrip(result[which].guard)).length,
  });
  const guards: Record<string, { recorded: number; replayed: number }> = {};
  for (const result of replayed) {
    for (const which of ["recorded", "replayed"] as const) {
      const guard = result[which].guard;
      if (!isGuardTrip(guard)) continue;
      guards[guard] ??= { recorded: 0, replayed: 0 };
      guards[guard][which] += 1;
    }
  }
  return {
    runs: results.length,
    replayed: replayed.length,
    same: replayed.filter((result) => result.changed.length === 0 && !result.diverged).length,
    changed: replayed.filter((result) => result.changed.length > 0).length,
    diverged: replayed.filter((result) => result.diverged).length,
    notReplayable: results.length - replayed.length,
    recorded: side("recorded"),
    replay: side("replayed"),
    guards,
  };
}

const ending = (view: EndView) =>
  view.status === "paused"
    ? "paused"
    : view.guard === "stopped"
      ? "stopped by a person"
      : view.guard === "model_unavailable"
        ? "model unreachable"
        : view.guard
          ? `${view.guard} guard`
          : "answered";
const costOf = (view: EndView) => (view.cost === undefined ? "cost unknown" : dollarText(view.cost));

/** One line for a run: what would change, or why it can't be replayed; undefined when it would end the same. */
export function resultLine(result: ReplayResult): string | undefined {
  if (result.kind === "not_replayable") return `${result.runId}: not replayable: ${result.reason}`;
  if (result.changed.length === 0 && !result.diverged) return undefined;
  const { recorded, replayed } = result;
  const parts = [
    `${ending(recorded)} → ${ending(replayed)}`,
    `steps ${recorded.steps} → ${replayed.steps}`,
    `tokens ${totalTokens(recorded.tokens).toLocaleString("en-US")} → ${totalTokens(replayed.tokens).toLocaleString("en-US")}`,
    `cost ${costOf(recorded)} → ${costOf(replayed)}`,
  ];
  return `${result.runId}: ${parts.join(", ")}${result.diverged ? ` (diverged: ${result.diverged})` : ""}`;
}

export function reportText(results: readonly ReplayResult[], totals: ReplayTotals = replayTotals(results)): string {
  const lines = results.flatMap((result) => resultLine(result) ?? []);
  const guardLines = Object.entries(totals.guards).map(([guard, count]) => `  ${guard}: ${count.recorded} → ${count.replayed} runs`);
  return [
    ...lines,
    ...(lines.length > 0 ? [""] : []),
    `${totals.runs} ${totals.runs === 1 ? "run" : "runs"}: ${totals.same} would end the same, ${totals.changed} differently (${totals.diverged} left the record), ${totals.notReplayable} not replayable.`,
    `Replayed runs in total: steps ${totals.recorded.steps} → ${totals.replay.steps}, tokens ${totals.recorded.tokens.toLocaleString("en-US")} → ${totals.replay.tokens.toLocaleString("en-US")}, cost ${dollarText(totals.recorded.cost)} → ${dollarText(totals.replay.cost)}, guard trips ${totals.recorded.guardTrips} → ${totals.replay.guardTrips}.`,
    ...(guardLines.length > 0 ? ["Guards (recorded → replayed):", ...guardLines] : []),
  ].join("\n");
}
