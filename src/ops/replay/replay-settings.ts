// The settings a replay changes (`--set AGENT_MAX_STEPS=6 …`): each checked like the same
// variable at start (one clear line when it is wrong), then laid over what the recorded run had
// in force. Only what decides the loop's course or its price can be changed.
import { loadConfig, type Config, type ToolPolicyRule } from "../../config.js";
import { ConfigError } from "../../errors.js";
import type { RecordSettings } from "../../memory/run-records/record-schema.js";

export interface ReplayOverrides {
  readonly maxSteps?: number;
  readonly maxConsecutiveErrors?: number;
  readonly oscillationWindow?: number;
  readonly contextWindow?: number;
  readonly reservedOutputTokens?: number;
  readonly observationTokens?: number;
  /** Replaces each tool's recorded policy. */
  readonly toolPolicy?: readonly ToolPolicyRule[];
  /** Prices (and counts) the tokens as this model. */
  readonly model?: string;
}

const SETTABLE: Record<string, (config: Config) => ReplayOverrides> = {
  AGENT_MAX_STEPS: (config) => ({ maxSteps: config.guards.maxSteps }),
  AGENT_MAX_CONSECUTIVE_ERRORS: (config) => ({ maxConsecutiveErrors: config.guards.maxConsecutiveErrors }),
  AGENT_OSCILLATION_WINDOW: (config) => ({ oscillationWindow: config.guards.oscillationWindow }),
  AGENT_CONTEXT_TOKENS: (config) => (config.guards.contextTokens === undefined ? {} : { contextWindow: config.guards.contextTokens }),
  AGENT_RESERVED_OUTPUT_TOKENS: (config) => ({ reservedOutputTokens: config.guards.reservedOutputTokens }),
  AGENT_OBSERVATION_TOKENS: (config) => ({ observationTokens: config.guards.observationTokens }),
  TOOL_POLICY: (config) => ({ toolPolicy: config.toolPolicy }),
  OPENAI_MODEL: (config) => ({ model: config.model.name }),
};

export const SETTABLE_NAMES = Object.keys(SETTABLE);

export type OverridesParse =
  | { readonly kind: "ok"; readonly overrides: ReplayOverrides }
  | { readonly kind: "invalid"; readonly message: string };

/** `NAME=value` pairs; a name replay can't change, or a value the variable would refuse, is one line. */
export function parseOverrides(pairs: readonly string[]): OverridesParse {
  let overrides: ReplayOverrides = {};
  for (const pair of pairs) {
    const equals = pair.indexOf("=");
    const name = equals < 0 ? pair.trim() : pair.slice(0, equals).trim();
    const value = equals < 0 ? "" : pair.slice(equals + 1).trim();
    const settable = SETTABLE[name];
    if (!settable) return { kind: "invalid", message: `--set ${name}: replay can change ${SETTABLE_NAMES.join(", ")}` };
    if (equals < 0 || value === "") return { kind: "invalid", message: `--set ${name}: expects ${name}=value` };
    try {
      overrides = { ...overrides, ...settable(loadConfig({ [name]: value })) };
    } catch (error) {
      if (error instanceof ConfigError) return { kind: "invalid", message: `--set ${error.message}` };
      throw error;
    }
  }
  return { kind: "ok", overrides };
}

/** The recorded settings with the overrides laid over them. */
export function settingsUnder(recorded: RecordSettings, overrides: ReplayOverrides): RecordSettings {
  return {
    ...recorded,
    ...(overrides.maxSteps === undefined ? {} : { maxSteps: overrides.maxSteps }),
    ...(overrides.maxConsecutiveErrors === undefined ? {} : { maxConsecutiveErrors: overrides.maxConsecutiveErrors }),
    ...(overrides.oscillationWindow === undefined ? {} : { oscillationWindow: overrides.oscillationWindow }),
    ...(overrides.contextWindow === undefined ? {} : { contextWindow: overrides.contextWindow }),
    ...(overrides.reservedOutputTokens === undefined ? {} : { reservedOutputTokens: overrides.reservedOutputTokens }),
    ...(overrides.observationTokens === undefined ? {} : { observationTokens: overrides.observationTokens }),
    ...(overrides.model === undefined ? {} : { model: overrides.model }),
  };
}
