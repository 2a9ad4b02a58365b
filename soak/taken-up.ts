// What became of each message in the store, for the messages a run takes up without answering
// them on their own: merged into a burst's question, added to a run in progress (a steer, an
// edit), or deleted. A run's answer is then its group's: the message it began with and those it
// took up (`into`). Read from the intake records at the end (leftovers.ts). Pure.
import { intakeIdFor } from "../src/runs/intake/intake-store.js";

/** An intake record's fate, by intake id. */
export interface Outcome {
  readonly state: string;
  readonly result?: string;
  /** The run (its message's intake id) that took this message up. */
  readonly into?: string;
}

/** An edit the soak sent of message `n`. */
export interface SentEdit {
  readonly n: number;
  readonly channel: string;
  readonly ts: string;
  readonly editedTs: string;
  /** The text it says now: a run given it names it. */
  readonly text: string;
  ackedAt: number | undefined;
}

export const intakeIdOf = (message: { readonly channel: string; readonly ts: string }): string =>
  intakeIdFor("slack", `${message.channel}:${message.ts}`);

export const editIntakeIdOf = (edit: SentEdit): string => intakeIdFor("slack", `${edit.channel}:${edit.ts}:edited:${edit.editedTs}`);

const TAKEN_UP = new Set(["merged", "steered"]);

/** Whether a run took the message up into another's (its answer is that one's). */
export const takenUp = (outcome: Outcome | undefined): boolean => outcome?.result !== undefined && TAKEN_UP.has(outcome.result);

/** The message whose run answers `n`: itself, or (taken up) the one it went into, followed to the end; by message number. */
export function groupRoots(
  messages: ReadonlyArray<{ readonly n: number; readonly channel: string; readonly ts: string }>,
  outcomes: ReadonlyMap<string, Outcome>,
): Map<number, number> {
  const byId = new Map(messages.map((message) => [intakeIdOf(message), message.n]));
  const roots = new Map<number, number>();
  for (const message of messages) {
    let id = intakeIdOf(message);
    for (let hops = 0; hops < 10; hops++) {
      const outcome = outcomes.get(id);
      if (!takenUp(outcome) || outcome?.into === undefined || !byId.has(outcome.into)) break;
      id = outcome.into;
    }
    roots.set(message.n, byId.get(id) ?? message.n);
  }
  return roots;
}
