// The text of the admins' `usage` chat command: today's and this month's tokens and cost for the
// channel asked in and for the whole workspace (UTC days). `usageCommandText` reads the counters;
// `usageText` is the pure part, so the command's table row only calls the one and posts the text.
import type { KeyValueStore } from "../memory/types.js";
import { usageBetween, type DayUsage } from "../memory/run-records/usage-counters.js";
import { costText, type PriceTable } from "./prices.js";
import { usageReport, type UsageLine } from "./usage-report.js";

export interface UsageScope {
  readonly surface: string;
  readonly channel: string;
  /** The Slack team or Discord guild; without one (the console, a DM) the surface as a whole is the workspace. */
  readonly workspace?: string;
}

const tokensOf = (line: UsageLine | undefined) => (line ? line.tokens.prompt + line.tokens.completion : 0);

function lineText(line: UsageLine | undefined): string {
  if (!line || tokensOf(line) === 0) return `0 tokens (${line && line.runs > 0 ? `${line.runs} runs, ` : ""}$0)`;
  const runs = line.runs === 1 ? "1 run" : `${line.runs.toLocaleString("en-US")} runs`;
  // The prompt tokens the model server read from its prompt cache, billed lower: what a prompt that caches saves.
  const cached = line.tokens.cached > 0 ? ` (${line.tokens.cached.toLocaleString("en-US")} cached)` : "";
  return `${tokensOf(line).toLocaleString("en-US")} tokens${cached}, ${runs}, ${costText(line.cost)}`;
}

/** `days`: the counters from the first of this month to today, oldest first. */
export function usageText(days: readonly DayUsage[], scope: UsageScope, now: number, prices: PriceTable): string {
  const today = new Date(now).toISOString().slice(0, 10);
  const todays = days.filter((day) => day.day === today);
  const workspaceOf = (report: ReturnType<typeof usageReport>) =>
    scope.workspace
      ? report.workspaces.find((line) => line.id === `${scope.surface}:${scope.workspace}`)
      : report.surfaces.find((line) => line.id === scope.surface);
  const month = usageReport(days, prices);
  const day = usageReport(todays, prices);
  const channelOf = (report: ReturnType<typeof usageReport>) => report.channels.find((line) => line.id === scope.channel);
  return [
    `Usage (UTC), today ${today} and this month:`,
    `• This channel today: ${lineText(channelOf(day))}`,
    `• This channel this month: ${lineText(channelOf(month))}`,
    `• The workspace today: ${lineText(workspaceOf(day))}`,
    `• The workspace this month: ${lineText(workspaceOf(month))}`,
  ].join("\n");
}

/** Reads this month's counters and writes the text. Rejects when the store does. */
export async function usageCommandText(store: KeyValueStore, scope: UsageScope, prices: PriceTable, now = Date.now()): Promise<string> {
  const date = new Date(now);
  const monthStart = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  return usageText(await usageBetween(store, monthStart, now), scope, now, prices);
}
