// Run: one record in full. The timeline (a duration bar per step, guard trips marked) and a
// tokens-per-step chart, each step's tool calls expandable to their arguments and full result,
// the guard and context notes, approvals and writes, the answer, a link to the thread; and a
// replay of the run under changed settings (the same as `npm run replay` for one run).
import { describeAnsweredBy } from "../../../contracts/trace-text.js";
import { sourceLabel } from "../../../contracts/source-label.js";
import { pricedRunOf, totalTokens, type RecordStep, type RunRecord } from "../../../memory/run-records/record-schema.js";
import { replayRecord, type ReplayResult } from "../../replay/replay-run.js";
import { resultLine } from "../../replay/replay-report.js";
import { parseOverrides, SETTABLE_NAMES } from "../../replay/replay-settings.js";
import { barChart, timeline } from "../charts.js";
import type { PageHandler, PageRequest } from "../explorer-deps.js";
import { text, type Reply } from "../http-io.js";
import { count, csrfField, html, outsideLink, page, seconds, table, when, type Raw } from "../html.js";
import { costCell, outcomeCell, votesCell } from "./runs-page.js";

function callsOf(step: RecordStep): Raw {
  return html`${step.calls.map(
    (
      call,
    ) => html`<details><summary>${call.tool} → <span class="outcome-${call.outcome === "ok" ? "answered" : "guard"}">${call.outcome}</span> · ${seconds(call.durationMs)}${call.cut ? ` · cut (${count(call.resultLength)} characters in full)` : ""}</summary>
<p>Arguments</p><pre>${call.args}</pre>${call.source ? html`<p class="source">Source: ${sourceLabel(call.source)} (the model read it as data)</p>` : ""}<p>Result</p><pre>${call.result}</pre></details>`,
  )}`;
}

/** "350 tokens (200 cached)": what the server said it read from its prompt cache. */
const tokensText = (step: RecordStep) =>
  `${count(step.usage ? totalTokens(step.usage) : 0)} tokens${step.usage?.cached ? ` (${count(step.usage.cached)} cached)` : ""}`;

/** How long the step waited for a person's decision: an approval asked during it, until decided (or the step's end). */
function waitedMs(record: RunRecord, step: RecordStep): number {
  const end = step.startedAt + step.durationMs;
  return record.approvals
    .filter((approval) => approval.requestedAt >= step.startedAt && approval.requestedAt <= end)
    .reduce((sum, approval) => sum + Math.max(0, Math.min(approval.decidedAt ?? end, end) - approval.requestedAt), 0);
}

/** "(model 0.4 s · waiting for approval 26.1 s)": where a step's time went, when the record knows. */
function stepTimeText(record: RunRecord, step: RecordStep): string {
  const waited = waitedMs(record, step);
  const parts = [
    ...(step.modelMs === undefined ? [] : [`model ${seconds(step.modelMs)}`]),
    ...(waited > 0 ? [`waiting for approval ${seconds(waited)}`] : []),
  ];
  return parts.length === 0 ? "" : ` (${parts.join(" · ")})`;
}

const plural = (value: number, one: string, many: string) => `${count(value)} ${value === 1 ? one : many}`;

/** "answered · 1 write denied": a run whose write was refused still answered, and says so. */
function deniedText(record: RunRecord): string {
  const denied = record.approvals.filter((approval) => approval.decision === "deny").length;
  return denied === 0 ? "" : ` · ${plural(denied, "write denied", "writes denied")}`;
}

function stepsOf(record: RunRecord): Raw {
  return html`${record.steps.map((step) => {
    const notes = record.notes.filter((note) => note.step === step.index);
    const moved = describeAnsweredBy(step);
    return html`<section class="step"><h3>Step ${step.index} · ${seconds(step.durationMs)}${stepTimeText(record, step)} · ${tokensText(step)}${step.endpoint ? ` · ${step.endpoint}` : ""}</h3>
${moved ? html`<p class="note">Model: ${moved}</p>` : ""}${step.text ? html`<pre>${step.text}</pre>` : ""}${callsOf(step)}
${notes.map((note) => html`<p class="${note.kind === "tripped" ? "trip-note" : "note"}">${note.kind === "tripped" ? "Guard tripped" : note.kind === "warned" ? "Guard warned" : note.kind === "form" ? "Asked the person" : "Context"}${note.guard ? ` (${note.guard})` : ""}: ${note.detail}</p>`)}</section>`;
  })}`;
}

function chartsOf(record: RunRecord): Raw {
  const start = record.steps[0]?.startedAt ?? record.startedAt;
  const tripped = record.notes.find((note) => note.kind === "tripped");
  const steps = record.steps.map((step) => ({
    index: step.index,
    offsetMs: Math.max(0, step.startedAt - start),
    durationMs: step.durationMs,
    ...(step.modelMs === undefined ? {} : { modelMs: step.modelMs }),
    ...(tripped && (tripped.step === step.index || (step === record.steps.at(-1) && tripped.step > step.index))
      ? { tripped: tripped.guard ?? "guard" }
      : {}),
  }));
  const bars = record.steps.map((step) => ({
    label: String(step.index),
    value: step.usage ? totalTokens(step.usage) : 0,
    title: `step ${step.index}: ${step.usage ? `${step.usage.prompt} in, ${step.usage.cached} cached, ${step.usage.completion} out` : "no usage reported"}`,
  }));
  return html`${timeline(steps, record.endedAt - record.startedAt)}${barChart(bars, "Tokens per step", 140, "No tokens were counted for these steps.")}`;
}

function approvalsOf(record: RunRecord): Raw {
  return table(
    ["Tool", "Arguments", "Asked", "Decision", "By", "When"],
    record.approvals.map((approval) => [
      approval.tool,
      html`<code>${approval.args}</code>`,
      approval.requestedAt ? when(approval.requestedAt) : "",
      approval.decision ?? "waiting",
      approval.decidedBy ? (approval.decidedBy.name ?? approval.decidedBy.id) : "",
      approval.decidedAt ? when(approval.decidedAt) : "",
    ]),
  );
}

function writesOf(record: RunRecord): Raw {
  const writes = new Set(record.settings.tools.filter((tool) => tool.effect === "write").map((tool) => tool.name));
  const calls = record.steps.flatMap((step) =>
    step.calls.filter((call) => writes.has(call.tool)).map((call) => ({ step: step.index, call })),
  );
  return table(
    ["Step", "Tool", "Outcome", "Result"],
    calls.map(({ step, call }) => [step, call.tool, call.outcome, call.result.slice(0, 200)]),
  );
}

function replayOf(record: RunRecord, csrf: string, form: URLSearchParams, result?: ReplayResult | string): Raw {
  const outcome =
    result === undefined
      ? ""
      : typeof result === "string"
        ? html`<p class="error" role="alert">${result}</p>`
        : html`<p class="replay-result">${resultLine(result) ?? "It would end the same: same status, guard, steps, tokens and cost."}</p>`;
  return html`<h2 id="replay">Replay</h2>
<form method="post" action="${`/admin/runs/${encodeURIComponent(record.runId)}/replay#replay`}">${csrfField(csrf)}
<label>Settings to change, one NAME=value a line (${SETTABLE_NAMES.join(", ")})<br><textarea name="set" rows="3" cols="60">${form.get("set") ?? ""}</textarea></label><br>
<button type="submit">Replay with the recorded replies and results</button></form>${outcome}`;
}

/** Every attached file, read or not and why (docs/files.md). */
function filesOfRun(record: RunRecord): Raw | string {
  if (!record.files?.length) return "";
  return html`<h2>Files</h2><ul class="files">${record.files.map((file) => html`<li>${file.name} ${file.outcome}</li>`)}</ul>`;
}

/** A question of files alone says so, rather than looking like text that was not kept. */
function questionText(record: RunRecord): string {
  if (record.content === "metadata") return `(no text kept: ${record.questionLength} characters)`;
  if (record.question === "" && record.files?.length)
    return `(no text: ${record.files.length === 1 ? "a file" : `${record.files.length} files`} alone)`;
  return record.question;
}

/** A link where the platform gave one; otherwise why there is none, not a label that looks like a link. */
function threadCell(record: RunRecord): Raw | string {
  if (record.link && /^https:\/\//.test(record.link)) return outsideLink(record.link, "open the conversation");
  return record.surface === "console" ? "none (a console conversation has no link)" : "no link was recorded";
}

function view(request: PageRequest, record: RunRecord, replay?: ReplayResult | string): Reply {
  const { deps, csrf } = request;
  const facts = table(
    ["", ""],
    [
      ["Started", `${when(record.startedAt)} UTC`],
      ["Where", `${record.surface} · ${record.channel}${record.workspace ? ` · ${record.workspace}` : ""} · ${record.conversationKey}`],
      ["Person", record.requester.name ? `${record.requester.name} (${record.requester.id})` : record.requester.id],
      [
        "Outcome",
        html`${outcomeCell(record.outcome, record.stop?.guard)}${deniedText(record)}${record.stop ? ` · ${record.stop.sentence}` : ""}`,
      ],
      ["Duration", seconds(record.endedAt - record.startedAt)],
      ["Tokens", `${count(record.usage.prompt)} in (${count(record.usage.cached)} cached), ${count(record.usage.completion)} out`],
      // "unknown (llama3)" beside its label, not "Cost: cost unknown".
      ["Cost", costCell(deps.prices, pricedRunOf(record)).replace(/^cost unknown/, "unknown")],
      [
        "Settings",
        `model ${record.settings.model}, at most ${plural(record.settings.maxSteps, "step", "steps")}, ${plural(record.settings.maxConsecutiveErrors, "error", "errors")} in a row, oscillation window ${record.settings.oscillationWindow}, context ${count(record.settings.contextWindow)} tokens${record.settings.persona ? ", with the channel's persona" : ""}`,
      ],
      [
        "Cacheable prefix",
        record.prefix
          ? `${count(record.prefix.shared)} of ${count(record.prefix.total)} tokens of the first request`
          : "no earlier run here to compare",
      ],
      ["Feedback", votesCell(record.votes) || "none"],
      ["Thread", threadCell(record)],
    ],
    "facts",
  );
  const body = html`${facts}
<h2>Question</h2><pre class="question">${questionText(record)}</pre>
${chartsOf(record)}
${filesOfRun(record)}<h2>Steps</h2>${stepsOf(record)}
<h2>Approvals</h2>${approvalsOf(record)}
<h2>Writes</h2>${writesOf(record)}
<h2>Answer</h2>${record.answer === undefined ? html`<p class="empty">${record.failure ? `Failed: ${record.failure}` : "No answer (yet)."}</p>` : html`<pre class="answer">${record.answer}</pre>`}
${replayOf(record, csrf, request.form, replay)}`;
  return { status: 200, type: "html", body: page({ title: `Run ${record.runId}`, csrf }, body) };
}

async function recordOf(request: PageRequest): Promise<RunRecord | Reply> {
  const loaded = await request.deps.records.load(request.params[0]!);
  if (loaded.kind === "missing") return text(404, "There is no record of that run (retention may have removed it).");
  if (loaded.kind === "invalid") return text(500, `The record of that run can't be read: ${loaded.reason}`);
  return loaded.record;
}

export const runPage: PageHandler = async (request) => {
  const record = await recordOf(request);
  return "runId" in record ? view(request, record) : record;
};

export const replayPage: PageHandler = async (request) => {
  const record = await recordOf(request);
  if (!("runId" in record)) return record;
  const lines = (request.form.get("set") ?? "")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  const overrides = parseOverrides(lines);
  if (overrides.kind === "invalid") return { ...view(request, record, overrides.message), status: 400 };
  return view(request, record, await replayRecord(record, overrides.overrides, request.deps.prices));
};
