// What the console's clicks and approval references are to the core. An approval is a question at
// the prompt, not a message: the core keeps where it was asked (its run and call) so an expiry
// ends the question and shows the run's summary in the turn that asked it.
import { z } from "zod";
import type { PendingApproval } from "../../contracts/types.js";

/** Checks a reference read back from the store: it is untrusted. */
export const ConsoleRefSchema = z.object({ runId: z.string().min(1).max(200), callId: z.string().min(1).max(1_000) });

export type ConsoleRef = z.infer<typeof ConsoleRefSchema>;

/** What a key press at the console answered: the approval question on screen, if it was one (Ctrl-C stops a run without one). */
export interface ConsoleClicked {
  readonly approval?: PendingApproval;
}

export function refOf(pending: Pick<PendingApproval, "runId" | "callId">): ConsoleRef {
  return { runId: pending.runId, callId: pending.callId };
}
