// Keeps a record of every run this process drives (finished, failed, or paused on an approval)
// and adds its tokens to the daily usage counters. A run observer: it collects the run's events
// as they pass and writes after the run's final event, on a later turn of the event loop and
// one write at a time, so nothing it does delays or loses the answer; a failed write is logged.
import type { Logger } from "../../logger.js";
import { isGuardTrip } from "../../contracts/guard-trips.js";
import { requestParts, prefixShare } from "../../agent/context/prompt-prefix.js";
import type { TaskOrigin } from "../../contracts/types.js";
import { errorText } from "../../agent/loop/error-text.js";
import { NO_USAGE, pricedRunOf, type RecordUsage, type RunRecord } from "../../memory/run-records/record-schema.js";
import type { RunRecordStore } from "../../memory/run-records/record-store.js";
import { addUsage, type UsageEntry } from "../../memory/run-records/usage-counters.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { RunObserver } from "../../runs/worker/run-observer.js";
import { buildRecord, placeOf, recordUsage, type RunEnd } from "./record-build.js";
import { priceTable, type PriceTable } from "../../cost/prices.js";
import { usageByPricedName } from "../../cost/run-cost.js";
import { newDraft, noteEvent, type RunDraft } from "./record-draft.js";
import { fitRecord, type RecordContent } from "./record-fit.js";
import { RunInterruptedError } from "../../errors.js";

export interface RecorderOptions {
  readonly store: KeyValueStore;
  readonly records: RunRecordStore;
  readonly logger: Logger;
  readonly content: RecordContent;
  readonly maxBytes: number;
  /** The channel's own instructions (the settings file), recorded with the settings. */
  readonly personaOf?: (origin: TaskOrigin) => string | undefined;
  /** Decides the names tokens are counted under: an endpoint with prices of its own is counted apart from its model. */
  readonly prices?: PriceTable;
  readonly clock?: () => number;
  /** How often retention runs (also once soon after the start). */
  readonly sweepEveryMs?: number;
}

export interface RunRecorder extends RunObserver {
  /** Notes a 👍 / 👎 on a recorded run. Never rejects. */
  noteVote(runId: string, personId: string, rating: "up" | "down"): Promise<void>;
  /** Resolves when every write asked for so far is done (tests, shutdown). */
  flushed(): Promise<void>;
  /** Stops the retention timer and waits for the writes in flight (bounded). */
  close(timeoutMs?: number): Promise<void>;
}

/** Runs whose records wait to be written at most; more are dropped with a warning (a store that hangs). */
const MAX_QUEUED = 1_000;
/** Runs in progress watched at once; a run that never ends (its process part stopped) is forgotten past this. */
const MAX_DRAFTS = 10_000;
/** Conversations whose last first request is kept for the prefix measure. */
const PREFIX_MEMORY = 1_000;
const HOUR_MS = 60 * 60_000;
const FIRST_SWEEP_MS = 60_000;

export function createRunRecorder(options: RecorderOptions): RunRecorder {
  const { store, records, logger } = options;
  const clock = options.clock ?? Date.now;
  const prices = options.prices ?? priceTable();
  const drafts = new Map<string, RunDraft>();
  const lastRequests = new Map<string, readonly string[]>();
  let queued = 0;
  let chain: Promise<void> = Promise.resolve();

  const enqueue = (what: string, runId: string, work: () => Promise<void>): void => {
    if (queued >= MAX_QUEUED) {
      logger.warn({ runId }, `a run record was not written: ${MAX_QUEUED} records already wait for the store`);
      return;
    }
    queued += 1;
    // setImmediate: the answer's post has been sent by the time the record is built.
    chain = chain.then(
      () =>
        new Promise<void>((resolve) =>
          setImmediate(() => {
            work()
              .catch((error: unknown) => logger.warn({ err: error, runId }, `could not ${what}; the answer was not affected`))
              .finally(() => {
                queued -= 1;
                resolve();
              });
          }),
        ),
    );
  };

  function measurePrefix(draft: RunDraft, record: RunRecord): RunRecord {
    if (!draft.firstRequest || !draft.setup) return record;
    const parts = requestParts(draft.setup.deps.tools.schemas, draft.firstRequest);
    const key = draft.origin.conversationKey;
    const earlier = lastRequests.get(key);
    lastRequests.delete(key);
    lastRequests.set(key, parts);
    if (lastRequests.size > PREFIX_MEMORY) lastRequests.delete(lastRequests.keys().next().value as string);
    return earlier ? { ...record, prefix: prefixShare(parts, earlier, draft.setup.deps.counter) } : record;
  }

  async function write(draft: RunDraft, end: RunEnd): Promise<void> {
    const loaded = draft.how === "new" ? undefined : await records.load(draft.runId);
    const previous = loaded?.kind === "found" ? loaded.record : undefined;
    const built = buildRecord(draft, end, previous, { now: clock(), ...personaFor(draft.origin) });
    const record = fitRecord(previous ? built : measurePrefix(draft, built), options);
    await records.save(record, previous);
    for (const entry of usageEntries(record, previous, clock(), prices)) await addUsage(store, entry);
  }

  const personaFor = (origin: TaskOrigin) => {
    const persona = options.personaOf?.(origin);
    return persona ? { persona } : {};
  };

  const finish = (runId: string, end: RunEnd): void => {
    const draft = drafts.get(runId);
    if (!draft) return;
    drafts.delete(runId);
    enqueue("write a run record", runId, () => write(draft, end));
  };

  const sweep = () => enqueue("apply the run records' retention", "retention", async () => void (await records.sweep(clock())));
  const first = setTimeout(sweep, FIRST_SWEEP_MS);
  const timer = setInterval(sweep, options.sweepEveryMs ?? HOUR_MS);
  first.unref();
  timer.unref();

  return {
    runStarted(runId, origin, how, setup) {
      if (drafts.size >= MAX_DRAFTS) drafts.delete(drafts.keys().next().value as string);
      drafts.set(runId, newDraft(runId, origin, how, setup, clock()));
    },
    event(event) {
      if (event.type === "final") return finish(event.runId, { kind: "outcome", outcome: event.outcome });
      const draft = drafts.get(event.runId);
      if (draft) noteEvent(draft, event, clock());
    },
    runFailed(runId, _origin, error) {
      // A run stopped for shutdown is not over: the next start continues it and records it then.
      if (error instanceof RunInterruptedError) return void drafts.delete(runId);
      finish(runId, { kind: "failed", reason: errorText(error) });
    },
    extraUsage(runId, origin, extra) {
      const place = placeOf(origin);
      const entry: UsageEntry = {
        at: clock(),
        surface: origin.surface,
        ...(place.workspace ? { workspace: place.workspace } : {}),
        channel: place.channel,
        person: origin.requester.id,
        model: extra.model,
        usage: recordUsage(extra.usage),
        facts: true,
      };
      enqueue("count fact extraction's tokens", runId, () => addUsage(store, entry));
    },
    async noteVote(runId, personId, rating) {
      enqueue("note a vote on a run record", runId, async () => void (await records.noteVote(runId, personId, rating)));
    },
    flushed: () => chain,
    async close(timeoutMs = 2_000) {
      clearTimeout(first);
      clearInterval(timer);
      await Promise.race([chain, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
    },
  };
}

/**
 * The counter increments of a record: its new tokens under each name they are priced by (the
 * endpoints that answered), and, on the first, the run, outcome and guard counts moved from its earlier part.
 */
function usageEntries(record: RunRecord, previous: RunRecord | undefined, now: number, prices: PriceTable): UsageEntry[] {
  const outcomes: Record<string, number> = { [record.outcome]: 1 };
  const guards: Record<string, number> = isGuardTrip(record.stop?.guard) ? { [record.stop.guard]: 1 } : {};
  if (previous) {
    outcomes[previous.outcome] = (outcomes[previous.outcome] ?? 0) - 1;
    if (isGuardTrip(previous.stop?.guard)) guards[previous.stop.guard] = (guards[previous.stop.guard] ?? 0) - 1;
  }
  const where = {
    at: now,
    surface: record.surface,
    ...(record.workspace ? { workspace: record.workspace } : {}),
    channel: record.channel,
    person: record.requester.id,
  };
  // What the earlier part added to the counters, by the names it was counted under.
  const counted = previous
    ? usageByPricedName(prices, { ...pricedRunOf(previous), usage: previous.counted })
    : new Map<string, RecordUsage>();
  const [first, ...rest] = [...usageByPricedName(prices, pricedRunOf(record))].map(([model, usage]) => ({
    ...where,
    model,
    usage: beyond(usage, counted.get(model) ?? NO_USAGE),
  }));
  return [{ ...first!, runs: previous ? 0 : 1, outcomes, guards }, ...rest];
}

/** What the counters still need of `usage`: its tokens beyond what an earlier part of the run counted. */
function beyond(usage: RecordUsage, counted: RecordUsage): RecordUsage {
  return {
    prompt: Math.max(0, usage.prompt - counted.prompt),
    completion: Math.max(0, usage.completion - counted.completion),
    cached: Math.max(0, usage.cached - counted.cached),
  };
}
