// What people do to the bot besides asking it something, and what governance holds each act to:
// the one rule every entry point asks (through RunPolicy.check), so a person the settings file
// refuses now is refused on every path, whenever the file changed. A question is not an act: it
// starts a run, which `admit` counts; a schedule's slot is admitted as its owner's question when
// it fires.
//
// Each act asks for access as a question would at the same place, right now. Acts that let a
// paused run go on, and so spend, are held to the daily token limits too. None counts against
// the per-minute limit, which counts runs as they start: a decision starts none, and a requester
// approving their own write within the minute they asked is not refused for asking.
//
// | act      | whose access, where                                                   | held to              |
// | -------- | --------------------------------------------------------------------- | -------------------- |
// | answer   | the person answering what a paused run waits for (Approve, Deny)      | access, daily tokens |
// | go_on    | a paused run going on after its answer: its requester, in its channel | access, daily tokens |
// | stop     | the person pressing Stop                                              | access               |
// | feedback | the person voting                                                     | access               |
// | command  | the person asking a command (memory, forget, settings…)               | access               |
//
// Whatever else a paused run may come to wait for from a person (an answer to a form) is an
// `answer` too: the run goes on after it.
import type { TaskOrigin } from "../contracts/types.js";

export type ActKind = "answer" | "go_on" | "stop" | "feedback" | "command";

export interface Act {
  readonly kind: ActKind;
  /** Whose access is asked: the person acting, where they act; for `go_on`, the run's own origin (its requester, its channel). */
  readonly origin: TaskOrigin;
}

/** Whether the act lets a run go on, so that the daily token limits hold it too. */
export function spends(kind: ActKind): boolean {
  return kind === "answer" || kind === "go_on";
}
