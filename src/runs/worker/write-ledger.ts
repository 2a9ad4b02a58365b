// Writes run at most once: each write call (approved by a person or allowed by policy) goes
// claimed → executing → done in the store before and after it runs, and `done` keeps how it
// ended (its result or error, cut to a bound). A call found already claimed or executing (the
// process died during the write) is never run again: the model gets "the outcome is unknown"
// instead, as an error observation that the trace shows too; one found done gets the outcome it
// had. Why a write can't be made twice after a crash, whatever its point: unknown-writes.ts.
import { z } from "zod";
import { errorText } from "../../agent/loop/error-text.js";
import { resultText } from "../../agent/tools/tool-registry.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { Logger } from "../../logger.js";
import type { Tool, ToolCall } from "../../contracts/types.js";

/** Longer than any run, its approval wait and the recovery after an outage. */
const LEDGER_TTL_MS = 7 * 24 * 60 * 60_000;
/** A kept result is cut here: more than the model is shown of one (AGENT_OBSERVATION_TOKENS) at its default. */
export const KEPT_TEXT_CHARS = 16_000;

export const UNKNOWN_OUTCOME = "the outcome of this write is unknown (the bot stopped while it was running); check before trying again";
/** What a finished write recorded before its outcome was kept (or whose outcome could not be stored) is known by. */
export const RESULT_NOT_KEPT = "This write was made (before the bot restarted), but its result was not kept; do not make it again.";

/** How a write ended: its result, or the error it threw (the text without the "Error: " the model is shown). */
const EndedSchema = z.object({ outcome: z.enum(["ok", "error"]), text: z.string() });
export type WriteEnded = z.infer<typeof EndedSchema>;

const EntrySchema = z.object({
  state: z.enum(["claimed", "executing", "done"]),
  tool: z.string(),
  args: z.string(),
  at: z.number(),
  /** On `done` only; entries written before it was kept have none. */
  ended: EndedSchema.optional(),
});
export type LedgerEntry = z.infer<typeof EntrySchema> & { readonly callId: string };

const entryKey = (runId: string, callId: string) => `write:${runId}:${callId}`;
/** A store set of the run's write call ids: atomic adds, whichever process runs the run. */
const runKey = (runId: string) => `write:calls:${runId}`;

export interface WriteLedger {
  /** Wraps a write tool so each of its calls is recorded; read tools are returned as they are. */
  guard(tool: Tool): Tool;
  /** Every write this run began, in the order they were recorded (done ones with how they ended). */
  entries(runId: string): Promise<LedgerEntry[]>;
}

/** Call ids the saved state already shows (as a call record or a model's tool call): their outcome is known to the model. */
export function knownCallIds(
  calls: readonly { readonly callId: string }[],
  messages: readonly { readonly role: string; readonly toolCalls?: readonly ToolCall[] }[],
): Set<string> {
  const ids = new Set(calls.map((call) => call.callId));
  for (const message of messages) for (const call of message.toolCalls ?? []) ids.add(call.id);
  return ids;
}

function kept(text: string): string {
  if (text.length <= KEPT_TEXT_CHARS) return text;
  return `${text.slice(0, KEPT_TEXT_CHARS)}\n…[cut: the result had ${text.length.toLocaleString("en-US")} characters]`;
}

/** What a second attempt of a call the ledger already holds gets: the outcome it had, never a second write. */
function earlierOutcome(entry: unknown): string {
  const parsed = EntrySchema.safeParse(entry);
  if (!parsed.success || parsed.data.state !== "done") throw new Error(`${UNKNOWN_OUTCOME}.`);
  const { ended } = parsed.data;
  if (!ended) return RESULT_NOT_KEPT;
  if (ended.outcome === "error") throw new Error(ended.text);
  return ended.text;
}

export function createWriteLedger(store: KeyValueStore, logger: Logger, clock: () => number = Date.now): WriteLedger {
  async function claim(runId: string, callId: string, tool: string, args: unknown): Promise<boolean> {
    await store.addToSet(runKey(runId), callId, LEDGER_TTL_MS);
    return store.setIfAbsent(
      entryKey(runId, callId),
      { state: "claimed", tool, args: JSON.stringify(args) ?? "", at: clock() },
      LEDGER_TTL_MS,
    );
  }

  return {
    guard(tool) {
      if (tool.effect !== "write") return tool;
      return {
        ...tool,
        async execute(args, context) {
          const callId = context.callId;
          if (!callId) return tool.execute(args, context);
          const key = entryKey(context.runId, callId);
          // A store that fails here throws before the write: it does not run.
          if (!(await claim(context.runId, callId, tool.name, args))) return earlierOutcome(await store.get(key));
          const entry = { tool: tool.name, args: JSON.stringify(args) ?? "", at: clock() };
          await store.set(key, { ...entry, state: "executing" }, LEDGER_TTL_MS);
          const finished = (ended: WriteEnded) =>
            store.set(key, { ...entry, state: "done", at: clock(), ended }, LEDGER_TTL_MS).catch((error: unknown) => {
              // Still at most once: a later attempt finds `executing` and reports an unknown outcome.
              logger.warn({ err: error, runId: context.runId, callId }, "could not record that a write finished");
            });
          let value: unknown;
          try {
            value = await tool.execute(args, context);
          } catch (error) {
            await finished({ outcome: "error", text: kept(errorText(error)) });
            throw error;
          }
          await finished({ outcome: "ok", text: kept(resultText(value)) });
          return value;
        },
      };
    },

    async entries(runId) {
      const entries: LedgerEntry[] = [];
      for (const callId of await store.setMembers(runKey(runId))) {
        const parsed = EntrySchema.safeParse(await store.get(entryKey(runId, callId)));
        if (parsed.success) entries.push({ ...parsed.data, callId });
      }
      return entries.sort((a, b) => a.at - b.at);
    },
  };
}
