// What a failing-over model call says, in a person's words: why an endpoint was left (a trace
// line's cause) and, when none answered, one failure that names every endpoint and what each did.
import type { ModelFailure } from "../../errors.js";
import { endpointHost, endpointText } from "../../contracts/model-endpoint.js";
import type { EndpointHealth } from "./endpoint-breakers.js";

/** Why a call left an endpoint that failed: "429 from api.openai.com", or the failure's own words when it names the server. */
export function failureCause(endpoint: string, failure: ModelFailure): string {
  return failure.status === undefined ? failure.cause : `${failure.status} from ${endpointHost(endpoint)}`;
}

/** Why a call did not ask an endpoint: its breaker refused, or the tries or the time ran out before its turn. */
export function notAskedCause(health: EndpointHealth): string {
  const last = health.lastFailure ? ` (last failure: ${health.lastFailure})` : "";
  if (health.state === "closed") return "not asked: the tries or the time ran out first";
  return health.state === "open" ? `its circuit breaker is open${last}` : `its circuit breaker lets one probe through at a time${last}`;
}

/** Why a call could not use an endpoint whose context window is too small for the conversation. */
export function unfitCause(contextTokens: number): string {
  return `the conversation does not fit its context window (${contextTokens.toLocaleString("en-US")} tokens)`;
}

/** What each endpoint did in this call (in the configured order), as one failure; retryable when trying again later can help. */
export function noEndpointAnswered(
  outcomes: readonly { readonly endpoint: string; readonly what: string }[],
  retryable: boolean,
): ModelFailure {
  return {
    cause: `no model endpoint answered (${outcomes.map(({ endpoint, what }) => `${endpointText(endpoint)}: ${what}`).join("; ")})`,
    fix: "check the model servers of OPENAI_BASE_URL and MODEL_FALLBACKS",
    retryable,
  };
}

/** A failure that ends the call at once (not worth another endpoint), naming the endpoint it came from. */
export function endpointFailure(endpoint: string, failure: ModelFailure): ModelFailure {
  return { ...failure, cause: `${endpointText(endpoint)}: ${failure.cause}` };
}
