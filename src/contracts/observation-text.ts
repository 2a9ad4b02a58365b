// The instructions the loop adds to an observation are for the model ("Fix them and call
// again."); a person reading a result sees it without them. The tool registry writes its
// observations with these sentences, so the two never drift apart.

export const FIX_ARGS_HINT = "Fix them and call again.";
export const SEND_JSON_HINT = "Send one JSON object that matches the tool's parameters.";

const MODEL_ONLY = [FIX_ARGS_HINT, SEND_JSON_HINT];

/** `observation` without its leading "Error: ", its "invalid arguments for <tool>: " and the instructions for the model. */
export function observationForPeople(observation: string): string {
  let text = observation.trim();
  for (const hint of MODEL_ONLY) if (text.endsWith(hint)) text = text.slice(0, -hint.length).trimEnd();
  return text.replace(/^Error: /, "").replace(/^invalid arguments for [\w.-]+: /, "");
}
