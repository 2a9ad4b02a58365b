// Daily usage counters: every model call's tokens (steps, compaction, summary, fact extraction)
// by day, for the whole bot and per surface, workspace, channel and person, each split by model,
// plus run, outcome and guard counts; and each workspace's channels and people apart, so one
// workspace's usage reads as its own. One counter group per UTC day, kept 400 days: record
// retention never touches them. Costs are computed when read (prices change; tokens don't).
import type { Surface } from "../../contracts/types.js";
import type { KeyValueStore } from "../types.js";
import type { RecordOutcome, RecordUsage } from "./record-schema.js";

export const USAGE_KEPT_DAYS = 400;
const DAY_MS = 24 * 60 * 60_000;
/** Between a field's parts: no id, channel or model name holds it. */
const SEP = "\u001f";

export type DimensionKind = "all" | "surface" | "workspace" | "channel" | "person";
export const DIMENSION_PREFIX: Record<DimensionKind, string> = { all: "*", surface: "s", workspace: "w", channel: "c", person: "u" };
/** A workspace's own channels and people (`wc:<surface>:<workspace>:<channel>`): read by daysOfWorkspace, skipped elsewhere. */
const WORKSPACE_CHANNEL = "wc";
const WORKSPACE_PERSON = "wu";
const KIND_OF_PREFIX = new Map(Object.entries(DIMENSION_PREFIX).map(([kind, prefix]) => [prefix, kind as DimensionKind]));

export interface UsageEntry {
  readonly at: number;
  readonly surface: string;
  readonly workspace?: string;
  readonly channel: string;
  readonly person: string;
  readonly model: string;
  /** Tokens to add (a paused run's later part adds only what it used after the pause). */
  readonly usage: RecordUsage;
  /** Fact extraction after the answer is counted apart too, so runs and the memory's share both show. */
  readonly facts?: boolean;
  /** +1 for a run counted the first time; outcome and guard counts move (−1 / +1) when a paused run ends. */
  readonly runs?: number;
  readonly outcomes?: Readonly<Partial<Record<RecordOutcome, number>>>;
  readonly guards?: Readonly<Record<string, number>>;
}

export interface TokenCounts {
  prompt: number;
  cached: number;
  completion: number;
  /** Of those, fact extraction's. */
  factsPrompt: number;
  factsCached: number;
  factsCompletion: number;
}

export interface DimensionUsage {
  readonly kind: DimensionKind;
  /** The surface, workspace, channel or person id ("" for all). */
  readonly id: string;
  readonly byModel: Map<string, TokenCounts>;
  readonly counts: Map<string, number>;
}

/** A workspace's own channel or person: `workspace` is `<surface>:<id>`. */
export interface ScopedUsage extends Omit<DimensionUsage, "kind"> {
  readonly kind: "channel" | "person";
  readonly workspace: string;
}

export interface DayUsage {
  /** YYYY-MM-DD (UTC). */
  readonly day: string;
  readonly dimensions: DimensionUsage[];
  /** Each workspace's channels and people (none on days an earlier version counted). */
  readonly scoped?: ScopedUsage[];
}

export const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);
export const usageKey = (day: string) => `usage:day:${day}`;

const TOKEN_METRICS: Record<string, keyof TokenCounts> = {
  in: "prompt",
  cached: "cached",
  out: "completion",
  fin: "factsPrompt",
  fcached: "factsCached",
  fout: "factsCompletion",
};

function dimensionsOf(entry: UsageEntry): string[] {
  return [
    DIMENSION_PREFIX.all,
    `${DIMENSION_PREFIX.surface}:${entry.surface}`,
    ...(entry.workspace
      ? [
          `${DIMENSION_PREFIX.workspace}:${entry.surface}:${entry.workspace}`,
          `${WORKSPACE_CHANNEL}:${entry.surface}:${entry.workspace}:${entry.channel}`,
          `${WORKSPACE_PERSON}:${entry.surface}:${entry.workspace}:${entry.person}`,
        ]
      : []),
    `${DIMENSION_PREFIX.channel}:${entry.channel}`,
    `${DIMENSION_PREFIX.person}:${entry.person}`,
  ].map((dimension) => dimension.replaceAll(SEP, " "));
}

/** The field increments one entry makes. */
export function usageFields(entry: UsageEntry): Record<string, number> {
  const fields: Record<string, number> = {};
  const add = (field: string, by: number) => {
    if (by !== 0) fields[field] = (fields[field] ?? 0) + by;
  };
  const model = entry.model.replaceAll(SEP, " ");
  for (const dimension of dimensionsOf(entry)) {
    add(`${dimension}${SEP}${model}${SEP}in`, entry.usage.prompt);
    add(`${dimension}${SEP}${model}${SEP}cached`, entry.usage.cached);
    add(`${dimension}${SEP}${model}${SEP}out`, entry.usage.completion);
    if (entry.facts) {
      add(`${dimension}${SEP}${model}${SEP}fin`, entry.usage.prompt);
      add(`${dimension}${SEP}${model}${SEP}fcached`, entry.usage.cached);
      add(`${dimension}${SEP}${model}${SEP}fout`, entry.usage.completion);
    }
    add(`${dimension}${SEP}#runs`, entry.runs ?? 0);
    for (const [outcome, by] of Object.entries(entry.outcomes ?? {})) add(`${dimension}${SEP}#o:${outcome}`, by ?? 0);
    for (const [guard, by] of Object.entries(entry.guards ?? {})) add(`${dimension}${SEP}#g:${guard.replaceAll(SEP, " ")}`, by);
  }
  return fields;
}

export async function addUsage(store: KeyValueStore, entry: UsageEntry): Promise<void> {
  const fields = usageFields(entry);
  if (Object.keys(fields).length > 0) await store.incrementFields(usageKey(dayOf(entry.at)), fields, USAGE_KEPT_DAYS * DAY_MS);
}

export const emptyCounts = (): TokenCounts => ({ prompt: 0, cached: 0, completion: 0, factsPrompt: 0, factsCached: 0, factsCompletion: 0 });

/** Parses one day's fields; fields of a shape this version does not know are left out. */
export function parseDay(day: string, fields: Readonly<Record<string, number>>): DayUsage {
  const dimensions = new Map<string, DimensionUsage>();
  const scoped = new Map<string, ScopedUsage>();
  const scopedFor = (name: string): ScopedUsage | undefined => {
    const [prefix = "", surface = "", workspace = "", ...rest] = name.split(":");
    const kind = prefix === WORKSPACE_CHANNEL ? "channel" : prefix === WORKSPACE_PERSON ? "person" : undefined;
    if (!kind || rest.length === 0) return undefined;
    const made: ScopedUsage = { kind, workspace: `${surface}:${workspace}`, id: rest.join(":"), byModel: new Map(), counts: new Map() };
    scoped.set(name, made);
    return made;
  };
  const dimensionFor = (name: string): DimensionUsage | ScopedUsage | undefined => {
    const found = dimensions.get(name) ?? scoped.get(name);
    if (found) return found;
    const colon = name.indexOf(":");
    const kind = KIND_OF_PREFIX.get(colon < 0 ? name : name.slice(0, colon));
    if (!kind) return scopedFor(name);
    if ((kind === "all") !== colon < 0) return undefined;
    const made: DimensionUsage = { kind, id: colon < 0 ? "" : name.slice(colon + 1), byModel: new Map(), counts: new Map() };
    dimensions.set(name, made);
    return made;
  };
  for (const [field, value] of Object.entries(fields)) {
    if (!Number.isFinite(value)) continue;
    const parts = field.split(SEP);
    const dimension = dimensionFor(parts[0] ?? "");
    if (!dimension) continue;
    if (parts.length === 2 && parts[1]!.startsWith("#")) {
      dimension.counts.set(parts[1]!.slice(1), value);
      continue;
    }
    const metric = parts.length === 3 ? TOKEN_METRICS[parts[2]!] : undefined;
    if (!metric) continue;
    const counts = dimension.byModel.get(parts[1]!) ?? emptyCounts();
    counts[metric] += value;
    dimension.byModel.set(parts[1]!, counts);
  }
  return { day, dimensions: [...dimensions.values()], ...(scoped.size > 0 ? { scoped: [...scoped.values()] } : {}) };
}

/** The UTC days from `since` to `until` (inclusive), at most USAGE_KEPT_DAYS of them, newest last. */
export function daysBetween(since: number, until: number): string[] {
  const first = Math.max(Math.floor(since / DAY_MS), Math.floor(until / DAY_MS) - USAGE_KEPT_DAYS + 1);
  const days: string[] = [];
  for (let day = first; day <= Math.floor(until / DAY_MS); day++) days.push(dayOf(day * DAY_MS));
  return days;
}

/** Whose counters go when a workspace removed the bot: the workspace's, and those of its channels and people. */
export interface ErasedUsage {
  readonly surface: Surface;
  readonly workspace: string;
  readonly channels: readonly string[];
  readonly people: readonly string[];
}

/** Pure: the fields of one day that count `erased` (any metric, any model). */
export function fieldsOfErased(fields: Readonly<Record<string, number>>, erased: ErasedUsage): string[] {
  const dimensions = new Set(
    [
      `${DIMENSION_PREFIX.workspace}:${erased.surface}:${erased.workspace}`,
      ...erased.channels.map((channel) => `${DIMENSION_PREFIX.channel}:${channel}`),
      ...erased.people.map((person) => `${DIMENSION_PREFIX.person}:${person}`),
    ].map((dimension) => dimension.replaceAll(SEP, " ")),
  );
  const own = [WORKSPACE_CHANNEL, WORKSPACE_PERSON].map((kind) => `${kind}:${erased.surface}:${erased.workspace}:`.replaceAll(SEP, " "));
  return Object.keys(fields).filter((field) => {
    const dimension = field.split(SEP)[0] ?? "";
    return dimensions.has(dimension) || own.some((prefix) => dimension.startsWith(prefix));
  });
}

/**
 * Pure: the days as one workspace (`<surface>:<id>`) sees them: its counters as the totals (the
 * bot's, the surface's and the workspace's own line), its channels and people as the channels and
 * people, nothing of any other workspace. Days an earlier version counted have its totals only.
 */
export function daysOfWorkspace(days: readonly DayUsage[], workspace: string): DayUsage[] {
  const surface = workspace.slice(0, workspace.indexOf(":"));
  return days.map((day) => {
    const totals = day.dimensions.filter((dimension) => dimension.kind === "workspace" && dimension.id === workspace);
    const theirs = (day.scoped ?? []).filter((dimension) => dimension.workspace === workspace);
    return {
      day: day.day,
      dimensions: [
        ...totals.flatMap((dimension) =>
          (["all", "surface", "workspace"] as const).map((kind) => ({
            ...dimension,
            kind,
            id: kind === "all" ? "" : kind === "surface" ? surface : workspace,
          })),
        ),
        ...theirs.map(({ workspace: _theirs, ...dimension }) => dimension),
      ],
    };
  });
}

/**
 * Deletes the counters of a removed workspace, its channels and its people on every day kept; the
 * bot's and the surface's totals keep counting what they used. A person's counters count them
 * everywhere they asked, so they go whole.
 */
export async function eraseUsage(store: KeyValueStore, erased: ErasedUsage, now: number): Promise<void> {
  for (const day of daysBetween(now - USAGE_KEPT_DAYS * DAY_MS, now)) {
    const fields = fieldsOfErased(await store.counterFields(usageKey(day)), erased);
    if (fields.length > 0) await store.deleteCounterFields(usageKey(day), fields);
  }
}

export async function usageBetween(store: KeyValueStore, since: number, until: number): Promise<DayUsage[]> {
  const days = daysBetween(since, until);
  const fields = await Promise.all(days.map((day) => store.counterFields(usageKey(day))));
  return days.map((day, index) => parseDay(day, fields[index]!));
}
