// Which model endpoints the process has, in order: OPENAI_MODEL (or a channel's own model) at
// OPENAI_BASE_URL with OPENAI_API_KEY, then MODEL_FALLBACKS, each with OPENAI_API_KEY unless the
// settings file's `models` section names its own key variable, and with its own context window
// there or from the model table. Pure: the config, the settings' section and the environment in.
import type { Config } from "./config.js";
import { bareUrl, endpointName, endpointParts } from "./contracts/model-endpoint.js";
import type { ModelEndpointSettings } from "./governance/settings-schema.js";
import { defaultContextWindow } from "./tokens/token-counter.js";

/** The SDK's own default, named so the primary has an endpoint name too. */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";

export interface EndpointSpec {
  /** `model@base URL`. */
  readonly name: string;
  readonly model: string;
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly contextWindow: number;
}

export type EndpointModels = Readonly<Record<string, ModelEndpointSettings>>;

export type FallbackList =
  | { readonly kind: "ok"; readonly endpoints: readonly EndpointSpec[] }
  /** `problem`: one line naming the settings entry and what is wrong. */
  | { readonly kind: "failed"; readonly problem: string };

/** The settings' entries by the endpoint name they mean (a trailing slash or credentials in the key change nothing). */
export function entriesByEndpoint(
  models: EndpointModels,
): ReadonlyMap<string, { readonly key: string; readonly entry: ModelEndpointSettings }> {
  return new Map(
    Object.entries(models).map(([key, entry]) => {
      const { model, server } = endpointParts(key);
      return [endpointName(model, server ?? ""), { key, entry }] as const;
    }),
  );
}

/**
 * The first endpoint of a run asking for `model` (OPENAI_MODEL or a channel's own) at
 * `contextWindow`, the loop's, so a smaller fallback is fitted against the same figure. An entry
 * of the settings for it changes nothing but its prices: OPENAI_API_KEY and AGENT_CONTEXT_TOKENS describe it.
 */
export function primaryEndpoint(config: Config, model: string, contextWindow: number): EndpointSpec {
  const baseUrl = bareUrl(config.model.baseUrl ?? OPENAI_BASE_URL);
  return { name: endpointName(model, baseUrl), model, baseUrl, apiKey: config.model.apiKey ?? "", contextWindow };
}

/** MODEL_FALLBACKS, each with its key (OPENAI_API_KEY or its own variable) and its window; a key variable that is unset fails. */
export function fallbackEndpoints(config: Config, models: EndpointModels, env: Readonly<Record<string, string | undefined>>): FallbackList {
  const entries = entriesByEndpoint(models);
  const endpoints: EndpointSpec[] = [];
  for (const fallback of config.model.fallbacks) {
    const name = endpointName(fallback.model, fallback.baseUrl);
    if (endpoints.some((endpoint) => endpoint.name === name)) continue;
    const found = entries.get(name);
    const variable = found?.entry.apiKeyVariable;
    const key = variable === undefined ? (config.model.apiKey ?? "") : env[variable]?.trim();
    if (!key)
      return { kind: "failed", problem: `models."${found?.key ?? name}".apiKeyVariable: ${variable} is not set in the environment` };
    endpoints.push({
      name,
      model: fallback.model,
      baseUrl: bareUrl(fallback.baseUrl),
      apiKey: key,
      contextWindow: found?.entry.contextTokens ?? defaultContextWindow(fallback.model),
    });
  }
  return { kind: "ok", endpoints };
}

/**
 * Entries of the settings' `models` that name no endpoint in use: a typo the operator should hear
 * of. Any model at OPENAI_BASE_URL may be in use (OPENAI_MODEL, or a channel's own).
 */
export function unusedEntries(models: EndpointModels, fallbacks: readonly EndpointSpec[], primary: EndpointSpec): string[] {
  return [...entriesByEndpoint(models)]
    .filter(([name]) => !fallbacks.some((endpoint) => endpoint.name === name) && endpointParts(name).server !== primary.baseUrl)
    .map(([, { key }]) => key);
}
