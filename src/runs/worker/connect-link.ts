// The Connect link of a run that waits for its requester to connect an MCP server. Whoever holds
// the link can connect their own account for that person's run, so no record keeps it
// (approval-store.ts drops it): it is made when the pause is shown, and made again (a new state;
// an earlier link stays good until it expires or is used) when a stored pause is shown again.
import type { PendingApproval } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import type { WorkerDeps } from "./worker-deps.js";

/** `pending` with its link; as it is when it waits for no connection or the link could not be made (logged; the text then says so). */
export async function withConnectUrl(
  pending: PendingApproval,
  connectLink: WorkerDeps["connectLink"],
  logger: Logger,
): Promise<PendingApproval> {
  if (!pending.connect || !connectLink) return pending;
  try {
    return { ...pending, connect: { server: pending.connect.server, url: await connectLink(pending) } };
  } catch (error) {
    logger.error({ err: error, runId: pending.runId }, "could not make a Connect link");
    return pending;
  }
}
