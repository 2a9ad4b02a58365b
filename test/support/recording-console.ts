// The console's surface hooks with a presenter that keeps what each run showed: for tests of what
// the runs show when no caller waits for them (a surface with a presenter is one that can show any
// run, as Slack's and Discord's can).
import type { RunOutcome, Tool } from "../../src/contracts/types.js";
import type { RunPresenter } from "../../src/runs/api/presenting.js";
import type { SurfaceHooks } from "../../src/runs/api/surface-hooks.js";

export interface RecordingConsole {
  readonly hooks: SurfaceHooks;
  /** Each run's outcome as it was shown, in order. */
  readonly shown: RunOutcome[];
  /** What a run failed with, where it was shown as a failure. */
  readonly failed: unknown[];
  /** The first outcome shown. */
  readonly firstShown: Promise<RunOutcome>;
}

export function recordingConsole(tools: readonly Tool[] = []): RecordingConsole {
  const shown: RunOutcome[] = [];
  const failed: unknown[] = [];
  let first: (outcome: RunOutcome) => void = () => {};
  const firstShown = new Promise<RunOutcome>((resolve) => (first = resolve));
  const present = (): RunPresenter => ({
    sink: () => {},
    async finish(outcome) {
      shown.push(outcome);
      first(outcome);
      return { messageId: `shown-${shown.length}` };
    },
    fail: async (error) => void failed.push(error),
  });
  return { hooks: { tools, present }, shown, failed, firstShown };
}
