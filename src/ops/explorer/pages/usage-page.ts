// Usage and cost: tokens and cost per day, channel, person and model over a range of days (from
// the daily counters), as charts and tables, guard trip rates, the 👍/👎 ratio, and the same as
// CSV. A CSV cell that a spreadsheet would run as a formula (=, +, -, @, tab, CR) is escaped.
import { costText } from "../../../cost/prices.js";
import { usageReport, type UsageLine, type UsageReport } from "../../../cost/usage-report.js";
import { daysOfWorkspace, usageBetween } from "../../../memory/run-records/usage-counters.js";
import { barChart } from "../charts.js";
import type { PageHandler } from "../explorer-deps.js";
import { json, type Reply } from "../http-io.js";
import { count, html, page, table, type Raw } from "../html.js";
import { usageRangeOf } from "../query.js";

const tokensOf = (line: UsageLine) => line.tokens.prompt + line.tokens.completion;

function linesTable(first: string, lines: readonly UsageLine[]): Raw {
  return table(
    [first, "Runs", "Input", "Cached", "Output", "Of which fact extraction", "Cost"],
    lines.map((line) => [
      line.id,
      count(line.runs),
      count(line.tokens.prompt),
      count(line.tokens.cached),
      count(line.tokens.completion),
      count(line.tokens.factsPrompt + line.tokens.factsCompletion),
      costText(line.cost),
    ]),
    "usage",
  );
}

/** `workspace`: that workspace's usage alone, as if it were the whole bot. */
export async function reportFor(
  deps: Parameters<PageHandler>[0]["deps"],
  since: number,
  until: number,
  workspace?: string,
): Promise<UsageReport> {
  const days = await usageBetween(deps.store, since, until);
  return usageReport(workspace ? daysOfWorkspace(days, workspace) : days, deps.prices);
}

const day = (at: number) => new Date(at).toISOString().slice(0, 10);

export const usagePage: PageHandler = async ({ url, csrf, deps, now }) => {
  const range = usageRangeOf(url.searchParams, now);
  const form = (since: string, until: string, workspace: string) => html`<form method="get" action="/admin/usage" class="filters">
<label>From<input type="date" name="since" value="${since}"></label><label>To<input type="date" name="until" value="${until}"></label>
<label>Workspace (slack:T…)<input type="text" name="workspace" value="${workspace}"></label>
<button type="submit">Show</button></form>`;
  if (range.kind === "invalid") {
    const body = html`${form(url.searchParams.get("since") ?? "", url.searchParams.get("until") ?? "", url.searchParams.get("workspace") ?? "")}<p class="error" role="alert">${range.message}</p>`;
    return { status: 400, type: "html", body: page({ title: "Usage and cost", csrf, current: "/admin/usage" }, body) };
  }
  const { since, until, workspace } = range.query;
  const report = await reportFor(deps, since, until, workspace);
  const votes = await deps.feedback.totals();
  const voted = votes.up + votes.down;
  const csv = `/admin/usage.csv?since=${day(since)}&until=${day(until)}${workspace ? `&workspace=${encodeURIComponent(workspace)}` : ""}`;
  const body = html`${form(day(since), day(until), workspace ?? "")}
<p class="total">Total: <strong data-total-tokens="${tokensOf(report.total)}">${count(tokensOf(report.total))} tokens</strong> (${count(report.total.tokens.prompt)} in, ${count(report.total.tokens.cached)} of them cached, ${count(report.total.tokens.completion)} out) in ${count(report.total.runs)} runs · <strong>${costText(report.total.cost)}</strong> · <a href="${csv}" download>CSV</a></p>
${barChart(
  report.days.map((line) => ({
    label: line.id.slice(5),
    value: tokensOf(line),
    title: `${line.id}: ${count(tokensOf(line))} tokens, ${costText(line.cost)}`,
  })),
  "Tokens per day",
  140,
  "No tokens were used in these days.",
)}
${barChart(
  report.days.map((line) => ({ label: line.id.slice(5), value: line.cost.dollars, title: `${line.id}: ${costText(line.cost)}` })),
  "Cost per day (priced models)",
  140,
  "No cost in these days: no run used a model with a price (MODEL_PRICES, or the settings file's models).",
)}
<h2>Per day</h2>${linesTable("Day", report.days)}
<h2>Per channel</h2>${linesTable("Channel", report.channels)}
<h2>Per person</h2>${linesTable("Person", report.people)}
<h2>Per model</h2>${linesTable("Model", report.models)}
<h2>Per surface</h2>${linesTable("Surface", report.surfaces)}
<h2>Guard trips</h2>${table(
    ["Guard", "Trips", "Share of runs"],
    report.guards.map((guard) => [guard.guard, count(guard.trips), `${(guard.rate * 100).toFixed(1)}%`]),
  )}
${
  // The vote totals are the bot's, not a workspace's.
  workspace
    ? ""
    : html`<h2>Feedback</h2><p>👍 ${count(votes.up)} · 👎 ${count(votes.down)}${voted > 0 ? ` · ${((votes.up / voted) * 100).toFixed(0)}% positive` : ""} (all time, the newest 500 votes kept in detail)</p>`
}`;
  return { status: 200, type: "html", body: page({ title: "Usage and cost", csrf, current: "/admin/usage" }, body) };
};

/** A cell as a spreadsheet will read it: quoted when needed, never a formula. */
export function csvCell(value: string | number): string {
  let cell = String(value);
  if (/^[=+\-@\t\r]/.test(cell)) cell = `'${cell}`;
  return /[",\n\r]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

export function usageCsvText(report: UsageReport): string {
  const header = [
    "dimension",
    "id",
    "runs",
    "input_tokens",
    "cached_tokens",
    "output_tokens",
    "fact_extraction_tokens",
    "cost_usd",
    "unpriced_tokens",
  ];
  const groups: ReadonlyArray<readonly [string, readonly UsageLine[]]> = [
    ["total", [report.total]],
    ["day", report.days],
    ["surface", report.surfaces],
    ["workspace", report.workspaces],
    ["channel", report.channels],
    ["person", report.people],
    ["model", report.models],
  ];
  const rows = groups.flatMap(([dimension, lines]) =>
    lines.map((line) => [
      dimension,
      line.id,
      line.runs,
      line.tokens.prompt,
      line.tokens.cached,
      line.tokens.completion,
      line.tokens.factsPrompt + line.tokens.factsCompletion,
      line.cost.dollars.toFixed(6),
      line.cost.unpricedTokens,
    ]),
  );
  return [header, ...rows].map((row) => row.map(csvCell).join(",")).join("\r\n") + "\r\n";
}

export const usageCsv: PageHandler = async ({ url, deps, now }): Promise<Reply> => {
  const range = usageRangeOf(url.searchParams, now);
  if (range.kind === "invalid") return json(400, { error: range.message });
  const report = await reportFor(deps, range.query.since, range.query.until, range.query.workspace);
  return {
    status: 200,
    type: "csv",
    body: usageCsvText(report),
    headers: { "Content-Disposition": `attachment; filename="usage-${day(range.query.since)}-${day(range.query.until)}.csv"` },
  };
};
