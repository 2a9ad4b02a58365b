// The state of an install in progress, for @slack/oauth's state check: a random value kept in the
// bot's store for ten minutes and taken once. A forged state was never stored, a replayed one is
// gone, an expired one has lapsed: each is refused (InvalidStateError), and Slack's answer with it
// is never exchanged. The installer's own check adds the browser's cookie to it.
import { randomBytes } from "node:crypto";
import { InvalidStateError, type InstallURLOptions, type StateStore } from "@slack/oauth";
import { z } from "zod";
import type { KeyValueStore } from "../../../memory/types.js";

export const INSTALL_STATE_TTL_MS = 10 * 60_000;
const PREFIX = "slack:install-state:";
const STATE_TEXT = /^[A-Za-z0-9_-]{32}$/;

const Kept = z.object({
  scopes: z.union([z.string(), z.array(z.string())]),
  redirectUri: z.string().optional(),
  teamId: z.string().optional(),
  metadata: z.string().optional(),
});

export function createInstallStates(store: KeyValueStore): StateStore {
  return {
    async generateStateParam(installOptions: InstallURLOptions) {
      const state = randomBytes(24).toString("base64url");
      const { scopes, redirectUri, teamId, metadata } = installOptions;
      const kept = { scopes, ...(redirectUri ? { redirectUri } : {}), ...(teamId ? { teamId } : {}), ...(metadata ? { metadata } : {}) };
      await store.set(`${PREFIX}${state}`, kept, INSTALL_STATE_TTL_MS);
      return state;
    },
    async verifyStateParam(_now: Date, state: string) {
      // Untrusted: a value of another shape never reaches the store.
      if (!STATE_TEXT.test(state)) throw new InvalidStateError("the state is not one this bot issued");
      const key = `${PREFIX}${state}`;
      const kept = Kept.safeParse(await store.get(key));
      // Taken once: of two callbacks with one state, only the one that deleted it goes on.
      if (!(await store.delete(key)) || !kept.success)
        throw new InvalidStateError("the state was already used, has expired, or was never issued");
      return kept.data;
    },
  };
}
