// The settings one run gets in its channel: the `default` entry under the channel's own (and
// a thread's own entry over its parent's), field by field. Tool lists combine strictly: every
// layer that has an allow list must allow a tool, and a deny in any layer wins.
import { globToRegExp } from "../agent/tools/tool-policy.js";
import type { ChannelSettings, ScheduleOverrides, Settings } from "./settings-schema.js";

export type ConcurrentMessages = NonNullable<ChannelSettings["concurrentMessages"]>;

export interface RunSettings {
  readonly systemPrompt?: string;
  readonly model?: string;
  readonly maxSteps?: number;
  readonly memory: boolean;
  /** False: the channel's attachments are not read (each gets a note). */
  readonly files: boolean;
  /** False: in a thread, only a mention reaches the bot (a reply there without one is not for it). */
  readonly threadFollowUps: boolean;
  /** The channel's own policy for a message that arrives while a run of its conversation is in flight; none: CONCURRENT_MESSAGES. */
  readonly concurrentMessages?: ConcurrentMessages;
  /** True when the tool may be offered to the model. */
  readonly toolAllowed: (name: string) => boolean;
  /** The lists as written, for `settings` to show. */
  readonly toolRules: { readonly allow: readonly (readonly string[])[]; readonly deny: readonly string[] };
  /** The channel's overrides of the SCHEDULE_* variables, field by field (none: the variables apply). */
  readonly schedules?: ScheduleOverrides;
}

const matchesAny = (patterns: readonly string[]) => {
  const compiled = patterns.map(globToRegExp);
  return (name: string) => compiled.some((test) => test.test(name));
};

/** `place`: the governing channel and, inside a thread, the thread: its own entry, then the parent's, then `default`. */
export function runSettingsFor(settings: Settings, place: { readonly channel?: string; readonly thread?: string }): RunSettings {
  const own = (id: string | undefined) => (id === undefined ? undefined : settings.channels[id]);
  const layers: ChannelSettings[] = [settings.channels.default, own(place.channel), own(place.thread)].filter(
    (layer): layer is ChannelSettings => layer !== undefined,
  );
  const pick = <K extends keyof ChannelSettings>(key: K): ChannelSettings[K] =>
    layers.reduce<ChannelSettings[K]>((found, layer) => layer[key] ?? found, undefined);
  const allow = layers.flatMap((layer) => (layer.tools?.allow === undefined ? [] : [layer.tools.allow]));
  const deny = layers.flatMap((layer) => layer.tools?.deny ?? []);
  const allowTests = allow.map(matchesAny);
  const denied = matchesAny(deny);
  const systemPrompt = pick("systemPrompt");
  const model = pick("model");
  const maxSteps = pick("maxSteps");
  const concurrentMessages = pick("concurrentMessages");
  return {
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
    ...(model === undefined ? {} : { model }),
    ...(maxSteps === undefined ? {} : { maxSteps }),
    memory: pick("memory") !== "off",
    files: pick("files") !== false,
    threadFollowUps: pick("threadFollowUps") !== "mention",
    ...(concurrentMessages === undefined ? {} : { concurrentMessages }),
    toolAllowed: (name) => !denied(name) && allowTests.every((test) => test(name)),
    toolRules: { allow, deny },
    schedules: Object.assign({}, ...layers.map((layer) => layer.schedules ?? {})) as ScheduleOverrides,
  };
}
