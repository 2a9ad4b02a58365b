// The conversations each workspace (a Slack workspace, a Discord server) has had with the bot,
// listed as their runs start: what must go when the workspace removes the bot. One store set per
// workspace, so the conversations every process adds are kept. Noted at every run (one set add,
// beside the run's other reads): a conversation listed once and taken off when its workspace left
// is listed again when the workspace comes back.
import type { KeyValueStore } from "./types.js";

export interface WorkspaceConversations {
  /** Lists the conversation under its workspace. Rejects when the store fails. */
  note(surface: string, workspace: string, conversationKey: string): Promise<void>;
  list(surface: string, workspace: string): Promise<string[]>;
  /** Takes the listed conversations off the list (their data is gone). */
  unlist(surface: string, workspace: string, conversationKeys: readonly string[]): Promise<void>;
}

export const workspaceConversationsKey = (surface: string, workspace: string) => `workspace:conversations:${surface}:${workspace}`;

/**
 * Pure: whether a conversation key belongs to the workspace. Every surface's key starts with its
 * name and its workspace (`slack:T1:…`, `discord:G1:…`; a Discord DM, `discord:dm:…`, belongs to none).
 */
export function isInWorkspace(conversationKey: string, surface: string, workspace: string): boolean {
  return conversationKey.startsWith(`${surface}:${workspace}:`);
}

export function createWorkspaceConversations(store: KeyValueStore): WorkspaceConversations {
  return {
    note: (surface, workspace, conversationKey) => store.addToSet(workspaceConversationsKey(surface, workspace), conversationKey),
    list: (surface, workspace) => store.setMembers(workspaceConversationsKey(surface, workspace)),
    async unlist(surface, workspace, conversationKeys) {
      const key = workspaceConversationsKey(surface, workspace);
      for (const conversationKey of conversationKeys) await store.removeFromSet(key, conversationKey);
    },
  };
}
