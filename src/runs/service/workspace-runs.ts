// A workspace that removed the bot: its runs still waiting end at once, shown nowhere (its platform
// can no longer be called). A message queued, or left unfinished by a process that stopped, is
// erased before a worker takes it (the worker finds nothing and shows nothing); a run paused for an
// approval loses its paused record (its expiry item then finds nothing). A run in progress ends as it would.
import type { Surface } from "../../contracts/types.js";
import { isInWorkspace } from "../../memory/workspace-conversations.js";
import type { ApprovalStore } from "../approvals/approval-store.js";
import type { IntakeStore } from "../intake/intake-store.js";

export interface EndedRuns {
  readonly queued: number;
  readonly paused: number;
}

export interface WorkspaceRunsDeps {
  readonly intake: Pick<IntakeStore, "unfinished" | "erase">;
  readonly approvals: Pick<ApprovalStore, "waiting" | "load" | "remove">;
}

export async function endWorkspaceRuns(deps: WorkspaceRunsDeps, surface: Surface, workspaces: readonly string[]): Promise<EndedRuns> {
  const theirs = (conversationKey: string) => workspaces.some((workspace) => isInWorkspace(conversationKey, surface, workspace));
  let queued = 0;
  for (const open of await deps.intake.unfinished()) {
    if (!theirs(open.conversationKey)) continue;
    await deps.intake.erase(open.id);
    queued += 1;
  }
  let paused = 0;
  for (const waiting of await deps.approvals.waiting()) {
    if (waiting.surface !== surface) continue;
    const loaded = await deps.approvals.load(waiting.runId);
    if (loaded.kind !== "found" || !theirs(loaded.run.state.origin.conversationKey)) continue;
    await deps.approvals.remove(waiting.runId);
    paused += 1;
  }
  return { queued, paused };
}
