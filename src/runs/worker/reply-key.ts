// Where a paused run keeps how its surface answers the person: the reply handle of the click that
// decided it, or of the message whose run waits for a connection.

/** How the surface answers through the click that decided (a secret: kept only as long as it works). */
export const replyKey = (runId: string, callId: string) => `resume:place:${runId}:${callId}`;
/** Longer than a resume waits in its conversation's queue; Discord's interaction tokens last 15 minutes. */
export const REPLY_TTL_MS = 15 * 60_000;
