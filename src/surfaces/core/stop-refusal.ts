// What the person who pressed Stop is told privately when the run does not stop for them. Both
// chat surfaces write user mentions as <@id>.
import type { StopResult } from "../../runs/service.js";

/** Undefined when the run is stopping: the run's own messages show it. */
export function stopRefusalText(result: StopResult): string | undefined {
  switch (result.kind) {
    case "stopping":
      return undefined;
    case "not_allowed":
      return `Only <@${result.requester.id}> or an approver can stop this run.`;
    case "not_running":
      return "This run is not running any more.";
  }
}
