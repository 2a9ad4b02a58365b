// Turns the step list into text a person can read in a thread: what was called, with what,
// how it went, how long it took and a glimpse of the result. Always bounded in length.
import { endpointLabel } from "./model-endpoint.js";
import { readsAChannel } from "./provenance.js";
import { sourceLabel } from "./source-label.js";
import type { AddedNote, CallRecord, FormNote, ModelSwitch, StepRecord } from "./types.js";

const OUTCOME_LABEL: Record<CallRecord["outcome"], string> = {
  ok: "ok",
  error: "error",
  invalid_args: "invalid arguments",
  unknown_tool: "unknown tool",
  timeout: "timed out",
  repeated: "repeat, not run",
  denied: "denied",
  needs_approval: "waiting for approval",
  blocked: "not run, stopped by a guard",
};

const ARGS_PREVIEW_CHARS = 80;
const OUTPUT_PREVIEW_CHARS = 160;
const DEFAULT_TRACE_CHARS = 3_500;

export function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * Short strings describing one tool call, for task lists and trace lines. `source`: where its
 * result's text came from, as the model's data block named it (absent for a call that did not run).
 * `output`: a glimpse of the result, empty for a read of a channel: a trace is seen by everyone where
 * the run was asked, who may not all see that channel (what the answer quotes of it is posted only
 * as the answer's hold allows: runs/holds).
 */
export function describeCall(call: CallRecord): { title: string; detail: string; output: string; source?: string } {
  return {
    title: `${call.tool}(${shorten(call.args, ARGS_PREVIEW_CHARS)})`,
    detail: `${OUTCOME_LABEL[call.outcome]} · ${formatDuration(call.durationMs)}`,
    output: readsAChannel(call) ? "" : shorten(call.result, OUTPUT_PREVIEW_CHARS),
    ...(call.source ? { source: sourceLabel(call.source) } : {}),
  };
}

/** A move in flight, as it happens: "gpt-4.1 did not answer (429 from api.openai.com); asking gpt-4o". */
export function describeSwitch(change: ModelSwitch): string {
  return `${endpointLabel(change.from, change.to)} did not answer (${change.cause}); asking ${endpointLabel(change.to, change.from)}`;
}

/** A step whose call moved: "gpt-4o answered instead of gpt-4.1: 429 from api.openai.com"; undefined when it did not. */
export function describeAnsweredBy(step: Pick<StepRecord, "endpoint" | "switches">): string | undefined {
  const first = step.switches?.[0];
  if (!first) return undefined;
  const answered = step.endpoint ?? step.switches!.at(-1)!.to;
  const causes = step.switches!.map((change) => change.cause).join("; ");
  // Back where it started, after the others failed too.
  if (answered === first.from) return `${endpointLabel(answered)} answered on a later try: ${causes}`;
  return `${endpointLabel(answered, first.from)} answered instead of ${endpointLabel(first.from, answered)}: ${causes}`;
}

const FORM_ENDS: Record<FormNote["action"], string> = { accept: "sent", decline: "declined", cancel: "cancelled" };
const CANCEL_WHY: Record<NonNullable<FormNote["reason"]>, string> = {
  dismissed: "dismissed",
  timeout: "no answer in time",
  stopped: "the run was stopped",
  unavailable: "it could not be kept",
  withdrawn: "the server withdrew it",
};

/** A question the call's server put to the person: "? form from rooms: sent by Ada after 12 s". */
export function describeForm(note: FormNote): string {
  const what = note.kind === "url" ? "link" : "form";
  const by = note.by ? ` by ${note.by.name ?? note.by.id}` : "";
  const why = note.action === "cancel" && note.reason && note.reason !== "dismissed" ? ` (${CANCEL_WHY[note.reason]})` : "";
  return `${what} from ${note.server}: ${note.kind === "url" && note.action === "accept" ? "shown" : FORM_ENDS[note.action]}${by}${why} after ${formatDuration(note.waitedMs)}`;
}

/** A message the person sent while the run worked: "added to the run in progress: only this week". */
export function describeAdded(note: AddedNote): string {
  return `${note.kind === "edited" ? "question edited, in the run in progress" : "added to the run in progress"}: ${note.text}`;
}

function renderStep(step: StepRecord): string {
  const moved = describeAnsweredBy(step);
  const added = (step.added ?? []).map((note) => `\n  + ${shorten(describeAdded(note), OUTPUT_PREVIEW_CHARS)}`).join("");
  const header = `Step ${step.index} · ${formatDuration(step.durationMs)}${added}${moved ? `\n  ↪ ${shorten(moved, OUTPUT_PREVIEW_CHARS)}` : ""}`;
  if (step.calls.length === 0) {
    return `${header}\n  answered${step.text ? `: ${shorten(step.text, OUTPUT_PREVIEW_CHARS)}` : ""}`;
  }
  const lines = step.calls.map((call) => {
    const { title, detail, output, source } = describeCall(call);
    const forms = (call.forms ?? []).map((note) => `\n    ? ${shorten(describeForm(note), OUTPUT_PREVIEW_CHARS)}`).join("");
    const from = source ? `\n    source: ${shorten(source, OUTPUT_PREVIEW_CHARS)}` : "";
    return `  ${call.outcome === "ok" ? "✓" : "✗"} ${title} — ${detail}${forms}${from}${output ? `\n    → ${output}` : ""}`;
  });
  return [header, ...lines].join("\n");
}

/** Plain text, one block per step; keeps the first and last steps when it must drop some. */
export function renderTrace(steps: readonly StepRecord[], options: { maxChars?: number } = {}): string {
  const maxChars = options.maxChars ?? DEFAULT_TRACE_CHARS;
  if (steps.length === 0) return "No steps.";
  // A step with many calls is cut on its own, so no single step can crowd out the rest.
  const blockCap = Math.max(40, Math.floor(maxChars / 2) - 40);
  const blocks = steps.map(renderStep).map((block) => (block.length <= blockCap ? block : `${block.slice(0, blockCap - 1)}…`));
  const full = blocks.join("\n");
  if (full.length <= maxChars) return full;

  const kept: string[] = [];
  let used = 0;
  let head = 0;
  let tail = blocks.length - 1;
  const tailBlocks: string[] = [];
  while (head <= tail) {
    const takeHead = kept.length <= tailBlocks.length;
    const block = takeHead ? blocks[head]! : blocks[tail]!;
    if (used + block.length + 60 > maxChars) break;
    used += block.length + 1;
    if (takeHead) {
      kept.push(block);
      head++;
    } else {
      tailBlocks.unshift(block);
      tail--;
    }
  }
  const omitted = tail - head + 1;
  const marker = `… ${omitted} step${omitted === 1 ? "" : "s"} omitted …`;
  const text = [...kept, marker, ...tailBlocks].join("\n");
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`;
}
