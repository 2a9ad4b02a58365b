// The workspaces of an Enterprise Grid org the app is installed in org-wide, as their events
// arrive: an org that uninstalls takes every one of them along (their runs, schedules and data),
// though Slack's uninstall event names the org alone. One store set per org, so every process's
// are kept; noted after the event is taken, never on the way to its acknowledgement.
import type { KeyValueStore } from "../../../memory/types.js";

export interface OrgWorkspaces {
  /** Rejects when the store fails. */
  note(enterprise: string, team: string): Promise<void>;
  list(enterprise: string): Promise<string[]>;
  /** The org is gone: its list goes. */
  clear(enterprise: string): Promise<void>;
}

const listKey = (enterprise: string) => `slack:org-workspaces:${enterprise}`;

export function createOrgWorkspaces(store: KeyValueStore): OrgWorkspaces {
  return {
    note: (enterprise, team) => store.addToSet(listKey(enterprise), team),
    list: (enterprise) => store.setMembers(listKey(enterprise)),
    async clear(enterprise) {
      for (const team of await store.setMembers(listKey(enterprise))) await store.removeFromSet(listKey(enterprise), team);
    },
  };
}
