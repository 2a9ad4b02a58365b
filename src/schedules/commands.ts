// The schedule commands as one pure-interface layer the surfaces call: `schedule <when>: <what>`,
// `schedules`, `unschedule <id>`, `pause <id>`, `resume <id>`. A surface parses its own payload into the
// command word, the text after it and the caller, and renders `reply`; it decides nothing.
import type { Person, TaskOrigin } from "../contracts/types.js";
import type { ScheduleBook, ScheduleCaller, ChangeResult } from "./schedule-book.js";
import { isScheduleId, MAX_WHAT_CHARS, type ScheduleRecord } from "./schedule-record.js";
import {
  cancelledText,
  createdText,
  endedText,
  listText,
  notAllowedText,
  notFoundText,
  notPausedText,
  passedText,
  pausedAlreadyText,
  pausedText,
  resumedText,
  USAGE,
} from "./schedule-text.js";
import { splitScheduleText } from "./when-phrase.js";

export type ScheduleCommandName = "schedule" | "schedules" | "unschedule" | "pause" | "resume";

export interface ScheduleCommand {
  readonly name: ScheduleCommandName;
  /** What followed the command word (Discord: `when: <when>` and `task: <what>` joined as `<when>: <what>`). */
  readonly text: string;
  readonly caller: ScheduleCaller;
}

export type ScheduleCommandResult =
  | { readonly kind: "usage"; readonly reply: string }
  | { readonly kind: "created"; readonly schedule: ScheduleRecord; readonly next: readonly number[]; readonly reply: string }
  | { readonly kind: "listed"; readonly schedules: readonly ScheduleRecord[]; readonly reply: string }
  | { readonly kind: "cancelled" | "paused" | "resumed"; readonly schedule: ScheduleRecord; readonly reply: string }
  /** Any refusal: a bad time, no timezone, a limit, not theirs, unknown id. One line. */
  | { readonly kind: "refused"; readonly reply: string };

export interface ScheduleCommandDeps {
  readonly book: ScheduleBook;
  /** The caller's timezone from their chat profile (Slack users.info `tz`); asked only when the phrase names none. */
  readonly timeZoneOf: (person: Person, origin: TaskOrigin) => Promise<string | undefined>;
}

function changeReply(
  result: ChangeResult,
  done: (schedule: ScheduleRecord, next: readonly number[]) => ScheduleCommandResult,
): ScheduleCommandResult {
  switch (result.kind) {
    case "changed":
      return done(result.schedule, result.next);
    case "not_found":
      return { kind: "refused", reply: notFoundText(result.id) };
    case "not_allowed":
      return { kind: "refused", reply: notAllowedText(result.schedule) };
    case "unchanged": {
      const texts = { ended: endedText, not_paused: notPausedText, paused: pausedAlreadyText, passed: passedText };
      return { kind: "refused", reply: texts[result.why](result.schedule) };
    }
  }
}

export function createScheduleCommands(deps: ScheduleCommandDeps): (command: ScheduleCommand) => Promise<ScheduleCommandResult> {
  const { book } = deps;

  const idOf = (command: ScheduleCommand): string | ScheduleCommandResult => {
    const id = command.text.trim().toLowerCase();
    if (isScheduleId(id)) return id;
    return { kind: "refused", reply: `\`${command.name}\` expects a schedule id like sch_ab12cd34 (\`schedules\` lists yours).` };
  };

  return async (command) => {
    const { caller } = command;
    switch (command.name) {
      case "schedule": {
        const request = splitScheduleText(command.text);
        if (request.kind === "usage") return { kind: "usage", reply: USAGE };
        if (request.what.length > MAX_WHAT_CHARS)
          return { kind: "refused", reply: `The task is ${request.what.length} characters; a schedule keeps at most ${MAX_WHAT_CHARS}.` };
        const result = await book.create({
          caller,
          when: request.when,
          what: request.what,
          via: "command",
          personTimeZone: () => deps.timeZoneOf(caller.person, caller.origin),
        });
        if (result.kind === "refused") return { kind: "refused", reply: result.text };
        return { kind: "created", schedule: result.schedule, next: result.next, reply: createdText(result.schedule, result.next) };
      }
      case "schedules": {
        const schedules = await book.list(caller, caller.isAdmin);
        return { kind: "listed", schedules, reply: listText(schedules, caller.isAdmin) };
      }
      case "unschedule": {
        const id = idOf(command);
        if (typeof id !== "string") return id;
        return changeReply(await book.cancel(id, caller), (schedule) => ({ kind: "cancelled", schedule, reply: cancelledText(schedule) }));
      }
      case "pause": {
        const id = idOf(command);
        if (typeof id !== "string") return id;
        return changeReply(await book.pause(id, caller), (schedule) => ({ kind: "paused", schedule, reply: pausedText(schedule) }));
      }
      case "resume": {
        const id = idOf(command);
        if (typeof id !== "string") return id;
        return changeReply(await book.resume(id, caller), (schedule, next) => ({
          kind: "resumed",
          schedule,
          reply: resumedText(schedule, next),
        }));
      }
    }
  };
}
