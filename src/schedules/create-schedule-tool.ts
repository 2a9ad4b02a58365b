// create_schedule: the model proposes a schedule for the person it is answering. It is a write,
// so it runs only once that person approved it (like any write); the schedule is theirs, in the
// conversation's channel, with the same checks and limits as the `schedule` command. Runs that
// a schedule started are not offered it, so a schedule can't breed schedules.
import { z } from "zod";
import type { Tool } from "../contracts/types.js";
import type { ScheduleBook } from "./schedule-book.js";
import { MAX_WHAT_CHARS } from "./schedule-record.js";
import { createdText } from "./schedule-text.js";
import { PHRASE_EXAMPLES } from "./when-phrase.js";

export const CREATE_SCHEDULE = "create_schedule";

const Args = z.object({
  when: z.string().trim().min(1).max(200).describe(`When it runs: ${PHRASE_EXAMPLES}.`),
  what: z.string().trim().min(1).max(MAX_WHAT_CHARS).describe("The task each run does, written as the person would ask it."),
});

export function createScheduleTool(
  book: ScheduleBook,
  personTimeZone: (origin: Parameters<NonNullable<Tool["availableTo"]>>[0]) => Promise<string | undefined>,
): Tool<z.infer<typeof Args>> {
  return {
    name: CREATE_SCHEDULE,
    description:
      "Schedules a task to run later or repeatedly, as the person you are answering, with its results posted in this channel. Use it only when they ask for something to happen on its own (a daily digest, a reminder). The person must approve it.",
    schema: Args,
    effect: "write",
    availableTo: (origin) => origin.schedule === undefined,
    async execute(args, context) {
      const { origin } = context;
      const result = await book.create({
        caller: { person: origin.requester, origin, isAdmin: false },
        when: args.when,
        what: args.what,
        via: "tool",
        personTimeZone: () => personTimeZone(origin),
      });
      // A refusal goes back to the model as an error observation it can act on (another time, a timezone).
      if (result.kind === "refused") throw new Error(result.text);
      return createdText(result.schedule, result.next);
    },
  };
}
