// Usage and cost over a range of days, from the daily counters: totals, per day, per surface,
// workspace, channel, person and model, run outcomes and guard trip rates. Pure: the counters
// come in, the report goes out; costs use the prices in force now.
import { emptyCounts, type DayUsage, type DimensionKind, type TokenCounts } from "../memory/run-records/usage-counters.js";
import { isGuardTrip } from "../contracts/guard-trips.js";
import { addCost, NO_COST, type CostSum, type PriceTable } from "./prices.js";

export interface UsageLine {
  /** The day, surface, workspace, channel, person or model it is about ("" for the total). */
  readonly id: string;
  readonly tokens: TokenCounts;
  readonly cost: CostSum;
  readonly runs: number;
}

export interface UsageReport {
  readonly total: UsageLine;
  readonly days: readonly UsageLine[];
  readonly surfaces: readonly UsageLine[];
  readonly workspaces: readonly UsageLine[];
  readonly channels: readonly UsageLine[];
  readonly people: readonly UsageLine[];
  readonly models: readonly UsageLine[];
  /** Runs by outcome (answered, stopped, paused, failed, guard). */
  readonly outcomes: Readonly<Record<string, number>>;
  /** Trips per guard and their share of the runs. */
  readonly guards: readonly { readonly guard: string; readonly trips: number; readonly rate: number }[];
}

class Line {
  tokens = emptyCounts();
  cost: CostSum = NO_COST;
  runs = 0;
  constructor(readonly id: string) {}

  add(prices: PriceTable, model: string, counts: TokenCounts): void {
    for (const key of Object.keys(counts) as Array<keyof TokenCounts>) this.tokens[key] += counts[key];
    this.cost = addCost(this.cost, prices, model, counts);
  }
}

const byTokens = (a: UsageLine, b: UsageLine) =>
  b.tokens.prompt + b.tokens.completion - (a.tokens.prompt + a.tokens.completion) || a.id.localeCompare(b.id);

export function usageReport(days: readonly DayUsage[], prices: PriceTable): UsageReport {
  const total = new Line("");
  const perDay: Line[] = [];
  const groups: Record<Exclude<DimensionKind, "all">, Map<string, Line>> = {
    surface: new Map(),
    workspace: new Map(),
    channel: new Map(),
    person: new Map(),
  };
  const models = new Map<string, Line>();
  const outcomes: Record<string, number> = {};
  const guards = new Map<string, number>();
  const lineIn = (map: Map<string, Line>, id: string) => map.get(id) ?? map.set(id, new Line(id)).get(id)!;
  for (const day of days) {
    const dayLine = new Line(day.day);
    perDay.push(dayLine);
    for (const dimension of day.dimensions) {
      const runs = dimension.counts.get("runs") ?? 0;
      if (dimension.kind === "all") {
        for (const [model, counts] of dimension.byModel) {
          total.add(prices, model, counts);
          dayLine.add(prices, model, counts);
          lineIn(models, model).add(prices, model, counts);
        }
        total.runs += runs;
        dayLine.runs += runs;
        for (const [name, value] of dimension.counts) {
          if (name.startsWith("o:")) outcomes[name.slice(2)] = (outcomes[name.slice(2)] ?? 0) + value;
          // Counters an earlier version kept for a Stop or an unreachable model are no guard trips.
          if (name.startsWith("g:") && isGuardTrip(name.slice(2))) guards.set(name.slice(2), (guards.get(name.slice(2)) ?? 0) + value);
        }
        continue;
      }
      const line = lineIn(groups[dimension.kind], dimension.id);
      for (const [model, counts] of dimension.byModel) line.add(prices, model, counts);
      line.runs += runs;
    }
  }
  const sorted = (map: Map<string, Line>) => [...map.values()].sort(byTokens);
  return {
    total,
    days: perDay,
    surfaces: sorted(groups.surface),
    workspaces: sorted(groups.workspace),
    channels: sorted(groups.channel),
    people: sorted(groups.person),
    models: sorted(models),
    outcomes,
    guards: [...guards]
      .filter(([, trips]) => trips > 0)
      .map(([guard, trips]) => ({ guard, trips, rate: total.runs === 0 ? 0 : trips / total.runs }))
      .sort((a, b) => b.trips - a.trips || a.guard.localeCompare(b.guard)),
  };
}
