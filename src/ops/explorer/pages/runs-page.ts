// Runs: newest first, a page at a time, filtered by surface, workspace, channel, person, outcome or guard,
// dates and text in the question; each row with the question's start, the outcome, steps,
// tokens, cost, duration and feedback, and a link to the run.
import { costText, dollarText, type PriceTable } from "../../../cost/prices.js";
import { runCost, type PricedRun } from "../../../cost/run-cost.js";
import { decodeCursor, type RunQuery } from "../../../memory/run-records/record-index.js";
import { OUTCOMES, totalTokens, type RunSummary } from "../../../memory/run-records/record-schema.js";
import type { PageHandler } from "../explorer-deps.js";
import { count, html, page, raw, seconds, table, when, type Raw } from "../html.js";
import { runQueryOf } from "../query.js";

const SURFACES = ["console", "slack", "discord"] as const;

/** Priced per endpoint that answered; a run of unpriced models is "cost unknown (llama3)". */
export function costCell(prices: PriceTable, run: PricedRun): string {
  const cost = runCost(prices, run);
  return cost.unpricedTokens === 0 ? dollarText(cost.dollars) : costText(cost);
}

/** "guard (repeat)", "failed (model_unavailable)", "stopped": the reason only where it says more than the outcome. */
export function outcomeCell(outcome: string, guard: string | undefined): Raw {
  return html`<span class="outcome-${outcome}">${outcome}${guard && guard !== outcome ? ` (${guard})` : ""}</span>`;
}

export function votesCell(votes: Readonly<Record<string, "up" | "down">>): string {
  const all = Object.values(votes);
  const up = all.filter((vote) => vote === "up").length;
  return all.length === 0 ? "" : `👍 ${up} 👎 ${all.length - up}`;
}

const option = (value: string, chosen: string | undefined, label = value) =>
  html`<option value="${value}"${raw(value === chosen ? " selected" : "")}>${label}</option>`;

function filters(params: URLSearchParams): Raw {
  const value = (name: string) => params.get(name) ?? "";
  const field = (name: string, label: string, type = "text") =>
    html`<label>${label}<input type="${type}" name="${name}" value="${value(name)}"></label>`;
  return html`<form method="get" action="/admin/" class="filters">
<label>Surface<select name="surface">${option("", value("surface"), "any")}${SURFACES.map((surface) => option(surface, value("surface")))}</select></label>
${field("workspace", "Workspace (slack:T…)")}${field("channel", "Channel")}${field("user", "Person")}
<label>Outcome<select name="outcome">${option("", value("outcome"), "any")}${OUTCOMES.map((outcome) => option(outcome, value("outcome")))}</select></label>
${field("guard", "Guard")}${field("since", "From", "date")}${field("until", "To", "date")}${field("q", "Question contains")}
<button type="submit">Filter</button></form>`;
}

function nextLink(params: URLSearchParams, next: string, searched: boolean): Raw {
  const query = new URLSearchParams(params);
  query.set("cursor", next);
  const at = decodeCursor(next);
  const note = searched && at ? ` (searched back to ${when(at.score)} UTC)` : "";
  return html`<p><a href="${`/admin/?${query.toString()}`}" rel="next">Older runs →</a>${note}</p>`;
}

function rows(runs: readonly RunSummary[], prices: PriceTable) {
  return runs.map((run) => [
    when(run.startedAt),
    run.surface,
    run.channel,
    run.requester.name ? `${run.requester.name} (${run.requester.id})` : run.requester.id,
    html`<a href="${`/admin/runs/${encodeURIComponent(run.runId)}`}">${run.question.slice(0, 80) || "(no text: files alone, or not kept)"}</a>`,
    html`${outcomeCell(run.outcome, run.guard)}${run.denied ? ` · ${run.denied} ${run.denied === 1 ? "write" : "writes"} denied` : ""}`,
    html`<span class="num">${run.steps}</span>`,
    html`<span class="num">${count(totalTokens(run.usage))}${run.usage.cached > 0 ? ` (${count(run.usage.cached)} cached)` : ""}</span>`,
    costCell(prices, run),
    seconds(run.durationMs),
    votesCell(run.votes),
  ]);
}

export const runsPage: PageHandler = async ({ url, csrf, deps }) => {
  const parsed = runQueryOf(url.searchParams);
  const head = ["Started (UTC)", "Surface", "Channel", "Person", "Question", "Outcome", "Steps", "Tokens", "Cost", "Duration", "Feedback"];
  if (parsed.kind === "invalid") {
    const body = html`${filters(url.searchParams)}<p class="error" role="alert">${parsed.message}</p>`;
    return { status: 400, type: "html", body: page({ title: "Runs", csrf, current: "/admin/" }, body) };
  }
  let result: Awaited<ReturnType<typeof deps.records.list>>;
  try {
    result = await deps.records.list(parsed.query satisfies RunQuery);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    const body = html`${filters(url.searchParams)}<p class="error" role="alert">${error.message}</p>`;
    return { status: 400, type: "html", body: page({ title: "Runs", csrf, current: "/admin/" }, body) };
  }
  const body = html`${filters(url.searchParams)}
${table(head, rows(result.runs, deps.prices), "runs")}
${result.next ? nextLink(url.searchParams, result.next, result.runs.length < parsed.query.limit) : ""}`;
  return { status: 200, type: "html", body: page({ title: "Runs", csrf, current: "/admin/" }, body) };
};
