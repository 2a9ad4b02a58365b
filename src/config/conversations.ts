// Conversations as people have them: messages that arrive while a run works, bursts, edits and deletions.
import { area } from "./area.js";
import { oneOf, wholeNumber, yesNo } from "./values.js";
import { variable } from "./variable.js";

export const CONCURRENT_MESSAGE_POLICIES = ["queue", "steer", "interrupt"] as const;

export const conversationsArea = area({
  title: "Conversations",
  about:
    "What a person's messages do while the bot works on their question, and which of their messages count as one question. A channel's `concurrentMessages` in the [settings file](governance.md) overrides the default there.",
  variables: {
    concurrentMessages: variable("CONCURRENT_MESSAGES", oneOf(CONCURRENT_MESSAGE_POLICIES), {
      default: "queue",
      meaning:
        "a message from the same person while a run of their conversation is in flight: `queue` answers it after, in order; `steer` adds it to the running run before its next model call (a run that already finished: a new run); `interrupt` stops the running run as Stop would (its summary) and starts a new one with both messages. Someone else's message is queued",
    }),
    messageDebounceMs: variable("MESSAGE_DEBOUNCE_MS", wholeNumber(0, 60_000), {
      default: 1_500,
      meaning:
        "messages from one person in one conversation, each within this long of the one before and before a run starts, are one question (in order, with their files); 0 turns it off",
    }),
    deleteAnswersWithQuestion: variable("DELETE_ANSWERS_WITH_QUESTION", yesNo(), {
      default: "no",
      meaning:
        "`yes`: when a person deletes a question the bot answered, the bot deletes its answer and trace in that thread too; `no` leaves them. A question deleted before it ran is dropped, and one deleted while its run works stops it without a summary, either way",
    }),
  },
  shape: (conversations) => ({ conversations }),
});
