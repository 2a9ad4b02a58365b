// The schedule commands' rows of the command table (`schedule <when>: <what>`, `schedules`,
// `unschedule <id>`, `pause <id>`, `resume <id>`): each hands the schedules engine the caller as
// the authority sees them and shows its one reply. The engine decides everything else (the
// time, the timezone, the limits, whose schedule it is); its replies quote what people wrote, so
// they are shown as plain text on the surface.
import type { ScheduleCommandName } from "../../schedules/commands.js";
import type { ScheduleCaller } from "../../schedules/schedule-book.js";
import { actorAt } from "./core-context.js";
import type { Command, CommandRequest } from "./command.js";
import { fitted } from "./texts.js";
import type { ChatSurface } from "./surface.js";
import { WHERE_CHANNEL, WHERE_THREAD } from "../../schedules/schedule-text.js";

export const SCHEDULES_OFF = "Schedules are not set up in this bot process.";

/** Discord's options of `/schedule`: `when` and `task`, joined as the text surfaces write them. */
export const WHEN_OPTION = "when";
export const TASK_OPTION = "task";
export const ID_OPTION = "id";

function callerAt(request: CommandRequest): ScheduleCaller {
  const { at, ctx } = request;
  return {
    person: at.origin.requester,
    origin: at.origin,
    isAdmin: ctx.governance.authority.may("others_schedules", actorAt(at)),
    // Asked inside a thread, the owner chose that thread; at a channel's top level each run gets a thread of its own.
    thread: at.inThread ? "origin" : "per_slot",
  };
}

/** The text after the command word, or Discord's options put into that form. */
function textOf(name: ScheduleCommandName, request: CommandRequest): string {
  const { options } = request;
  if (name === "schedule" && (options[WHEN_OPTION] !== undefined || options[TASK_OPTION] !== undefined))
    return `${options[WHEN_OPTION] ?? ""}: ${options[TASK_OPTION] ?? ""}`;
  return options[ID_OPTION] ?? request.text;
}

function row(name: ScheduleCommandName, summary: string, extra: Partial<Command> = {}): Command {
  return {
    name,
    summary,
    async answer(request) {
      const { schedules, surface } = request.ctx;
      if (!schedules) return SCHEDULES_OFF;
      const result = await schedules.run({ name, text: textOf(name, request), caller: callerAt(request) });
      // An admin's list of many schedules is cut to one message, saying so.
      return fitted(surface.format.plain(asTypedOn(surface, result.reply)), surface.format.maxChars);
    },
    ...extra,
  };
}

const QUOTED_COMMAND = /`(schedules?|unschedule|pause|resume)(?=[\s`])/g;

/** The engine's reply as this surface's people read it: a command as they type it here (`/unschedule sch_…`), results where they show here. */
export function asTypedOn(surface: Pick<ChatSurface, "commandMark" | "scheduleResultsWhere">, reply: string): string {
  const mark = surface.commandMark ?? "";
  const where = surface.scheduleResultsWhere;
  const typed = mark === "" ? reply : reply.replace(QUOTED_COMMAND, (_quoted, name: string) => `\`${mark}${name}`);
  return where === undefined ? typed : typed.replace(WHERE_CHANNEL, where).replace(WHERE_THREAD, where);
}

const idOption = { name: ID_OPTION, description: "The schedule's id, e.g. sch_ab12cd34", maxLength: 12 } as const;

export const SCHEDULE_COMMANDS: readonly Command[] = [
  row("schedule", "Run a task on a schedule: schedule <when>: <what>", {
    takesText: true,
    options: [
      { name: WHEN_OPTION, description: "e.g. every weekday at 9:00 Europe/Berlin, in 20 minutes, cron 0 9 * * 1-5 UTC", maxLength: 400 },
      { name: TASK_OPTION, description: "What the agent should do each time", maxLength: 4000 },
    ],
  }),
  row("schedules", "Your schedules (admins: everyone's, with owner and channel)", { private: true }),
  row("unschedule", "Cancel a schedule: unschedule <id>", { takesText: true, options: [idOption] }),
  row("pause", "Pause a schedule until it is resumed: pause <id>", { takesText: true, options: [idOption] }),
  row("resume", "Resume a paused schedule: resume <id>", { takesText: true, options: [idOption] }),
];
