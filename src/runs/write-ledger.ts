// Writes run at most once: each write call (approved by a person or allowed by policy) goes
// claimed → executing → done in the store before and after it runs. A call found already
// claimed or executing (the process died during the write) is never run again: the model gets
// "the outcome is unknown" instead, as an error observation that the trace shows too.
import { z } from "zod";
import type { KeyValueStore } from "../memory/types.js";
import type { Logger } from "../logger.js";
import type { Tool, ToolCall } from "../agent/types.js";

/** Longer than any run, its approval wait and the recovery after an outage. */
const LEDGER_TTL_MS = 7 * 24 * 60 * 60_000;

export const UNKNOWN_OUTCOME = "the outcome of this write is unknown (the bot stopped while it was running); check before trying again";

const EntrySchema = z.object({
  state: z.enum(["claimed", "executing", "done"]),
  tool: z.string(),
  args: z.string(),
  at: z.number(),
});
export type LedgerEntry = z.infer<typeof EntrySchema> & { readonly callId: string };

const entryKey = (runId: string, callId: string) => `write:${runId}:${callId}`;
/** A store set of the run's write call ids: atomic adds, whichever process runs the run. */
const runKey = (runId: string) => `write:calls:${runId}`;

export interface WriteLedger {
  /** Wraps a write tool so each of its calls is recorded; read tools are returned as they are. */
  guard(tool: Tool): Tool;
  /** This run's writes that started and never finished (the process died during them). */
  unfinished(runId: string): Promise<LedgerEntry[]>;
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
          // A store that fails here throws before the write: it does not run.
          if (!(await claim(context.runId, callId, tool.name, args))) throw new Error(`${UNKNOWN_OUTCOME}.`);
          const key = entryKey(context.runId, callId);
          const entry = { tool: tool.name, args: JSON.stringify(args) ?? "", at: clock() };
          await store.set(key, { ...entry, state: "executing" }, LEDGER_TTL_MS);
          try {
            return await tool.execute(args, context);
          } finally {
            await store.set(key, { ...entry, state: "done", at: clock() }, LEDGER_TTL_MS).catch((error: unknown) => {
              // Still at most once: a later attempt finds `executing` and reports an unknown outcome.
              logger.warn({ err: error, runId: context.runId, callId }, "could not record that a write finished");
            });
          }
        },
      };
    },

    async unfinished(runId) {
      const entries: LedgerEntry[] = [];
      for (const callId of await store.setMembers(runKey(runId))) {
        const parsed = EntrySchema.safeParse(await store.get(entryKey(runId, callId)));
        if (parsed.success && parsed.data.state !== "done") entries.push({ ...parsed.data, callId });
      }
      return entries;
    },
  };
}
