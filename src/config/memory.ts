// What a run remembers: earlier turns of its conversation and long-term facts.
import { area } from "./area.js";
import { wholeNumber, yesNo } from "./values.js";
import { variable } from "./variable.js";

export const memoryArea = area({
  title: "Memory",
  about: "Earlier turns of the conversation, and the facts kept about it between runs.",
  variables: {
    historyTurns: variable("MEMORY_HISTORY_TURNS", wholeNumber(1, 100), {
      default: 10,
      meaning: "earlier turns of the conversation loaded into a run",
    }),
    historyTokens: variable("MEMORY_HISTORY_TOKENS", wholeNumber(100, 200_000), {
      default: 4000,
      meaning:
        "… and at most this many tokens of them; a longer message is kept cut to a quarter of this, with a note, so it can't push every earlier turn out",
    }),
    maxFacts: variable("MEMORY_MAX_FACTS", wholeNumber(1, 10_000), {
      default: 200,
      meaning: "long-term facts kept per conversation (least used and oldest go first)",
    }),
    recallFacts: variable("MEMORY_RECALL_FACTS", wholeNumber(1, 100), {
      default: 8,
      meaning:
        "most relevant facts put into a run's note (right before the question: facts change per run, so they come after what a prompt cache can reuse)",
    }),
    extractFacts: variable("MEMORY_EXTRACT_FACTS", yesNo(), {
      default: "yes",
      meaning: "one extra model call after each reply to pick facts worth keeping",
    }),
  },
  shape: (memory) => ({ memory }),
});
