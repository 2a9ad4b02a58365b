// What the console reads of the service itself: what the last session left (the conversation's
// earlier turns, its approvals still waiting) and `/new`'s fresh start. Every question, decision
// and Stop goes through the core's flows instead, as on Slack and Discord.
import type { AgentService } from "../../runs/api/agent-service.js";

export type ConsoleService = Pick<AgentService, "memory" | "waitingApprovals">;
