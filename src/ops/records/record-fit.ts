// A record as it may be stored: secrets masked as in the logs, no message or tool text at all
// with RUN_RECORD_CONTENT=metadata, and at most RUN_RECORD_MAX_BYTES of JSON (the longest tool
// results are cut first, each with its full length noted; then the first request, then texts).
import { maskSecrets } from "../../logger.js";
import type { RecordStep, RunRecord } from "../../memory/run-records/record-schema.js";

export type RecordContent = "full" | "metadata";

export interface FitOptions {
  readonly content: RecordContent;
  readonly maxBytes: number;
}

const sizeOf = (record: RunRecord) => Buffer.byteLength(JSON.stringify(record), "utf8");
const cutNote = (length: number) => `\n…[cut: ${length.toLocaleString("en-US")} characters in full]`;

function mapSteps(record: RunRecord, each: (step: RecordStep) => RecordStep): RunRecord {
  return { ...record, steps: record.steps.map(each) };
}

function masked(record: RunRecord): RunRecord {
  const mask = maskSecrets;
  return {
    ...mapSteps(record, (step) => ({
      ...step,
      text: step.text === null ? null : mask(step.text),
      toolCalls: step.toolCalls.map((call) => ({ ...call, arguments: mask(call.arguments) })),
      calls: step.calls.map((call) => ({ ...call, args: mask(call.args), result: mask(call.result) })),
    })),
    question: mask(record.question),
    ...(record.answer === undefined ? {} : { answer: mask(record.answer) }),
    ...(record.failure === undefined ? {} : { failure: mask(record.failure) }),
    ...(record.firstRequest
      ? {
          firstRequest: record.firstRequest.map((message) =>
            message.role === "assistant"
              ? {
                  ...message,
                  content: message.content === null ? null : mask(message.content),
                  ...(message.toolCalls
                    ? { toolCalls: message.toolCalls.map((call) => ({ ...call, arguments: mask(call.arguments) })) }
                    : {}),
                }
              : { ...message, content: mask(message.content) },
          ),
        }
      : {}),
    ...(record.settings.persona ? { settings: { ...record.settings, persona: mask(record.settings.persona) } } : {}),
    approvals: record.approvals.map((approval) => ({ ...approval, args: mask(approval.args) })),
    notes: record.notes.map((note) => ({ ...note, detail: mask(note.detail) })),
  };
}

/** Names, outcomes, lengths, times and tokens only: nothing anyone wrote or any tool returned. */
function metadataOnly(record: RunRecord): RunRecord {
  const { firstRequest: _dropped, answer: _answer, ...rest } = record;
  const { persona: _persona, ...settings } = record.settings;
  return {
    ...mapSteps(rest as RunRecord, (step) => ({
      ...step,
      text: null,
      toolCalls: step.toolCalls.map((call) => ({ ...call, arguments: "" })),
      calls: step.calls.map((call) => ({ ...call, args: "", result: "" })),
    })),
    settings: { ...settings, tools: settings.tools.map((tool) => ({ ...tool, description: "", parameters: {} })) },
    content: "metadata",
    question: "",
    approvals: record.approvals.map((approval) => ({ ...approval, args: "" })),
    ...(record.files ? { files: record.files.map((file) => ({ ...file, name: "(name not kept)" })) } : {}),
  };
}

/** Cuts every tool result longer than `limit` characters. */
function withResultsCut(record: RunRecord, limit: number): RunRecord {
  return mapSteps(record, (step) => ({
    ...step,
    calls: step.calls.map((call) =>
      call.cut || call.result.length <= limit
        ? call
        : { ...call, result: call.result.slice(0, limit) + cutNote(call.resultLength), cut: true },
    ),
  }));
}

const clip = (text: string, limit: number) => (text.length <= limit ? text : text.slice(0, limit) + cutNote(text.length));

/** The texts other than results, each to `limit` characters. */
function withTextsCut(record: RunRecord, limit: number): RunRecord {
  return {
    ...mapSteps(record, (step) => ({
      ...step,
      text: step.text === null ? null : clip(step.text, limit),
      toolCalls: step.toolCalls.map((call) => ({ ...call, arguments: clip(call.arguments, limit) })),
      calls: step.calls.map((call) => ({ ...call, args: clip(call.args, limit) })),
    })),
    question: clip(record.question, limit),
    ...(record.answer === undefined ? {} : { answer: clip(record.answer, limit) }),
  };
}

export function fitRecord(record: RunRecord, options: FitOptions): RunRecord {
  const whole = options.content === "metadata" ? metadataOnly(record) : masked(record);
  if (sizeOf(whole) <= options.maxBytes) return whole;
  // Longest results first: halve the allowance (cutting the whole results each time) until the record fits.
  const longest = Math.max(0, ...whole.steps.flatMap((step) => step.calls.map((call) => call.result.length)));
  let fitted = whole;
  for (let limit = Math.floor(longest / 2); limit >= 64; limit = Math.floor(limit / 2)) {
    fitted = { ...withResultsCut(whole, limit), cut: true };
    if (sizeOf(fitted) <= options.maxBytes) return fitted;
  }
  const { firstRequest: _dropped, ...withoutRequest } = fitted;
  fitted = { ...withoutRequest, cut: true };
  for (let limit = 4_000; limit >= 64; limit = Math.floor(limit / 2)) {
    fitted = withTextsCut(withResultsCut(fitted, 64), limit);
    if (sizeOf(fitted) <= options.maxBytes) return fitted;
  }
  // A run of hundreds of calls: only what it did, not what was said.
  return { ...metadataOnly(fitted), content: options.content, cut: true };
}
