// A model that tells what each reply's tokens were: for the calls a run makes outside its loop
// (fact extraction), whose usage still belongs in the run's counts.
import type { Model, TokenUsage } from "../../contracts/types.js";

/** `report` must not throw; a reply without usage reports nothing. */
export function reportingUsage(model: Model, report: (usage: TokenUsage) => void): Model {
  return {
    name: model.name,
    async complete(request, signal) {
      const reply = await model.complete(request, signal);
      if (reply.usage) report(reply.usage);
      return reply;
    },
  };
}
