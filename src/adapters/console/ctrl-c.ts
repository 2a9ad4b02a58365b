// What Ctrl-C means at the console, as in a chat box: the smallest thing that stops what is
// going on. A second press, with nothing left to stop, leaves.

export type CtrlC = "clear_line" | "deny" | "stop_run" | "leave";

export function ctrlC(state: {
  /** What is typed and not yet sent. */
  readonly typed: string;
  /** An `approve? [y/N]` question is waiting for its answer. */
  readonly approving: boolean;
  /** A run is in progress and was not asked to stop yet. */
  readonly stoppable: boolean;
}): CtrlC {
  if (state.typed !== "") return "clear_line";
  if (state.approving) return "deny";
  if (state.stoppable) return "stop_run";
  return "leave";
}
