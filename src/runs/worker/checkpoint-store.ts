// A run's state after every completed step, so a crash or a deploy costs at most one step.
// Saved as an append-only log of deltas (the messages and steps added since the last save,
// the counters in full): a step writes kilobytes, not the whole conversation. Checked with zod
// on load; a log that does not parse is refused, never half-trusted.
import { z } from "zod";
import { RunStateSchema, type RunState } from "../../agent/loop/run-state.js";
import type { KeyValueStore } from "../../memory/types.js";

/** A run's checkpoints outlive any outage the next start must recover from. */
const CHECKPOINT_TTL_MS = 7 * 24 * 60 * 60_000;
/** More parts than any run has steps (and a bound on what a damaged store can make us read). */
const MAX_PARTS = 1_000;

const shape = RunStateSchema.shape;
const CallSchema = shape.steps.element.shape.calls.element;
/** A call as a part stores it: `observation` left out when it is the tool message's text in the same part, `result` when it equals the observation. */
const StoredCallSchema = CallSchema.extend({ result: z.string().optional(), observation: z.string().optional() });
const StoredStepSchema = shape.steps.element.extend({ calls: z.array(StoredCallSchema) });
type StoredStep = z.infer<typeof StoredStepSchema>;
type Step = RunState["steps"][number];

/** Each observation is stored once (as the tool message) instead of three times: the bulk of a step's bytes. */
function compactSteps(steps: readonly Step[], messages: RunState["messages"]): StoredStep[] {
  const toolText = new Map(
    messages.flatMap((message) => (message.role === "tool" ? [[message.toolCallId, message.content] as const] : [])),
  );
  return steps.map((step) => ({
    ...step,
    calls: step.calls.map((call) => ({
      ...call,
      result: call.result === call.observation ? undefined : call.result,
      observation: toolText.get(call.callId) === call.observation ? undefined : call.observation,
    })),
  }));
}

function expandSteps(steps: readonly StoredStep[], messages: RunState["messages"]): Step[] | undefined {
  const toolText = new Map(
    messages.flatMap((message) => (message.role === "tool" ? [[message.toolCallId, message.content] as const] : [])),
  );
  const expanded: Step[] = [];
  for (const step of steps) {
    const calls: Step["calls"][number][] = [];
    for (const call of step.calls) {
      const observation = call.observation ?? toolText.get(call.callId);
      if (observation === undefined) return undefined;
      calls.push({ ...call, observation, result: call.result ?? observation });
    }
    expanded.push({ ...step, calls });
  }
  return expanded;
}

const PartSchema = z.object({
  version: z.literal(1),
  /** The part that starts the log names the run. */
  head: z.object({ runId: shape.runId, origin: shape.origin, question: shape.question }).optional(),
  messages: z.object({ from: z.number().int().nonnegative(), items: shape.messages }),
  steps: z.object({ from: z.number().int().nonnegative(), items: z.array(StoredStepSchema) }),
  guards: shape.guards,
  usage: shape.usage,
  elapsedMs: shape.elapsedMs,
  pending: shape.pending,
  /** Absent in parts written before text had sources. */
  boundary: shape.boundary,
});
type Part = z.infer<typeof PartSchema>;

export type CheckpointLoad =
  | { readonly kind: "found"; readonly state: RunState; readonly parts: number }
  | { readonly kind: "missing" }
  | { readonly kind: "invalid"; readonly reason: string };

export interface CheckpointWriter {
  /** Appends what changed since the last save. */
  save(state: RunState): Promise<void>;
  /** Deletes the run's checkpoint (the parts this writer knows of: no probing). */
  clear(): Promise<void>;
}

/**
 * For a run nobody could continue (not recorded: one asked with `ask`, whose caller waits in this
 * process): nothing would ever read its checkpoints, so none are written.
 */
export const UNRECORDED_RUN: CheckpointWriter = { save: async () => {}, clear: async () => {} };

export interface CheckpointStore {
  /** A writer for one run; `from` continues the log of a loaded checkpoint. */
  writer(runId: string, from?: Extract<CheckpointLoad, { kind: "found" }>): CheckpointWriter;
  load(runId: string): Promise<CheckpointLoad>;
  remove(runId: string): Promise<void>;
}

const partKey = (runId: string, index: number) => `checkpoint:${runId}:${index}`;

/** The unchanged prefix of `now` against what was saved last: the same array grown, or nothing. */
function unchangedPrefix<T>(now: readonly T[], saved: { ref: readonly T[] | undefined; length: number; last: T | undefined }): number {
  if (now !== saved.ref || now.length < saved.length) return 0;
  return saved.length === 0 || now[saved.length - 1] === saved.last ? saved.length : 0;
}

/** Rebuilds the state from its parts; undefined when the log does not add up. */
export function assemble(parts: readonly Part[]): RunState | undefined {
  const head = parts[0]?.head;
  if (!head) return undefined;
  let messages: RunState["messages"] = [];
  let steps: RunState["steps"] = [];
  for (const part of parts) {
    if (part.messages.from > messages.length || part.steps.from > steps.length) return undefined;
    const added = expandSteps(part.steps.items, part.messages.items);
    if (!added) return undefined;
    messages = [...messages.slice(0, part.messages.from), ...part.messages.items];
    steps = [...steps.slice(0, part.steps.from), ...added];
  }
  const last = parts[parts.length - 1] as Part;
  return {
    version: 1,
    ...head,
    messages,
    steps,
    guards: last.guards,
    usage: last.usage,
    elapsedMs: last.elapsedMs,
    ...(last.pending ? { pending: last.pending } : {}),
    ...(last.boundary ? { boundary: last.boundary } : {}),
  } as RunState;
}

export function createCheckpointStore(store: KeyValueStore): CheckpointStore {
  async function readParts(runId: string): Promise<unknown[]> {
    const parts: unknown[] = [];
    for (let index = 0; index < MAX_PARTS; index++) {
      const raw = await store.get(partKey(runId, index));
      if (raw === undefined) break;
      parts.push(raw);
    }
    return parts;
  }

  return {
    writer(runId, from) {
      let next = from?.parts ?? 0;
      const messages = {
        ref: undefined as RunState["messages"] | undefined,
        length: 0,
        last: undefined as RunState["messages"][number] | undefined,
      };
      const steps = {
        ref: undefined as RunState["steps"] | undefined,
        length: 0,
        last: undefined as RunState["steps"][number] | undefined,
      };
      return {
        async save(state) {
          const messagesFrom = unchangedPrefix(state.messages, messages);
          const stepsFrom = unchangedPrefix(state.steps, steps);
          const part: Part = {
            version: 1,
            ...(next === 0 ? { head: { runId: state.runId, origin: state.origin, question: state.question } } : {}),
            messages: { from: messagesFrom, items: state.messages.slice(messagesFrom) },
            steps: { from: stepsFrom, items: compactSteps(state.steps.slice(stepsFrom), state.messages.slice(messagesFrom)) },
            guards: state.guards,
            usage: state.usage,
            elapsedMs: state.elapsedMs,
            ...(state.pending ? { pending: state.pending } : {}),
            ...(state.boundary ? { boundary: state.boundary } : {}),
          } as Part;
          await store.set(partKey(runId, next), part, CHECKPOINT_TTL_MS);
          next += 1;
          Object.assign(messages, { ref: state.messages, length: state.messages.length, last: state.messages[state.messages.length - 1] });
          Object.assign(steps, { ref: state.steps, length: state.steps.length, last: state.steps[state.steps.length - 1] });
        },
        async clear() {
          const written = next;
          // A log written after this starts again from nothing: part 0, with every message and step.
          next = 0;
          Object.assign(messages, { ref: undefined, length: 0, last: undefined });
          Object.assign(steps, { ref: undefined, length: 0, last: undefined });
          await Promise.all(Array.from({ length: written }, (_, index) => store.delete(partKey(runId, index))));
        },
      };
    },

    async load(runId) {
      const raw = await readParts(runId);
      if (raw.length === 0) return { kind: "missing" };
      const parts: Part[] = [];
      for (const item of raw) {
        const parsed = PartSchema.safeParse(item);
        if (!parsed.success)
          return { kind: "invalid", reason: `a saved step failed validation (${parsed.error.issues[0]?.message ?? "unknown"})` };
        parts.push(parsed.data);
      }
      const state = assemble(parts);
      if (!state || state.runId !== runId) return { kind: "invalid", reason: "the saved steps do not add up to a run" };
      return { kind: "found", state, parts: parts.length };
    },

    async remove(runId) {
      for (let index = 0; index < MAX_PARTS; index++) {
        if (!(await store.delete(partKey(runId, index)))) break;
      }
    },
  };
}
