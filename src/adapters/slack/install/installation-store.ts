// The app's installations, one per workspace (or Enterprise Grid org), in the bot's own store:
// Bolt's InstallationStore over keyv. Tokens and refresh tokens are sealed (AES-256-GCM with the
// key kept like the approval key, outside the store), each bound to its installation's key so a
// sealed value copied under another workspace does not open. Beside the sealed installation the
// record keeps what may be listed (names, ids, scopes, dates) and never a token.
import type { Installation, InstallationQuery, InstallationStore } from "@slack/oauth";
import { z } from "zod";
import type { KeyValueStore } from "../../../memory/types.js";
import type { SealedBox } from "../../../tools/mcp/auth/sealed-box.js";
import { installationKey, refOfQuery, type WorkspaceRef } from "./workspace-ref.js";

const RECORD_PREFIX = "slack:installation:";
const LISTING = "slack:installations";

/** What may be shown of an installation: no token, no refresh token. */
export interface InstalledWorkspace {
  readonly key: string;
  readonly team?: { readonly id: string; readonly name?: string };
  readonly enterprise?: { readonly id: string; readonly name?: string };
  readonly orgInstall: boolean;
  /** Epoch ms of the first install (a reinstall keeps it; an uninstall deletes it). */
  readonly installedAt: number;
  readonly scopes: readonly string[];
  readonly botUserId?: string;
  /** Token rotation is on: the bot token expires and is refreshed. */
  readonly rotating: boolean;
}

/** An installation as the token source reads it. */
export interface StoredInstallation {
  readonly installation: Installation;
  /** Seconds a bot token lives when rotating (what Slack's expires_in said when it was issued). */
  readonly lifetimeSeconds?: number;
}

export interface SlackInstallations extends InstallationStore {
  /** undefined when the workspace has no installation (or its record does not open with this key). */
  fetch(ref: WorkspaceRef): Promise<StoredInstallation | undefined>;
  /**
   * Writes `installation` (a refresh's rotated tokens included, with the `lifetimeSeconds` Slack gave them); a
   * reinstall keeps the first install's date.
   */
  store(installation: Installation, lifetimeSeconds?: number): Promise<void>;
  /** True when there was one. */
  delete(ref: WorkspaceRef): Promise<boolean>;
  list(): Promise<InstalledWorkspace[]>;
}

const Named = z.object({ id: z.string().min(1), name: z.string().optional() });
const Summary = z.object({
  key: z.string().min(1),
  team: Named.optional(),
  enterprise: Named.optional(),
  orgInstall: z.boolean(),
  installedAt: z.number(),
  scopes: z.array(z.string()),
  botUserId: z.string().optional(),
  rotating: z.boolean(),
});
const StoredRecord = z.object({ summary: Summary, sealed: z.string(), lifetimeSeconds: z.number().positive().optional() });
/** The sealed side is ours, but it is read back from a store others may write: a bot token is the least it must hold. */
const Opened = z.looseObject({
  bot: z.looseObject({ token: z.string().min(1), userId: z.string().min(1), scopes: z.array(z.string()) }).optional(),
});

const namedOf = (named: { id: string; name?: string } | undefined) =>
  named?.id ? { id: named.id, ...(named.name ? { name: named.name } : {}) } : undefined;

function refOfInstallation(installation: Installation): WorkspaceRef {
  const team = installation.team?.id;
  const enterprise = installation.enterprise?.id;
  return { orgInstall: installation.isEnterpriseInstall === true, ...(team ? { team } : {}), ...(enterprise ? { enterprise } : {}) };
}

/** What may be listed of every installation (the sealed side is not opened: no key is needed). */
export async function listInstalls(store: KeyValueStore): Promise<InstalledWorkspace[]> {
  const keys = await store.setMembers(LISTING);
  const records = await store.getMany(keys.map((key) => `${RECORD_PREFIX}${key}`));
  return records.flatMap((raw) => {
    const parsed = StoredRecord.safeParse(raw);
    return parsed.success ? [parsed.data.summary] : [];
  });
}

export function createSlackInstallations(store: KeyValueStore, box: SealedBox, clock: () => number = Date.now): SlackInstallations {
  const recordKey = (key: string) => `${RECORD_PREFIX}${key}`;

  async function readRecord(key: string): Promise<z.infer<typeof StoredRecord> | undefined> {
    const parsed = StoredRecord.safeParse(await store.get(recordKey(key)));
    return parsed.success ? parsed.data : undefined;
  }

  async function fetch(ref: WorkspaceRef): Promise<StoredInstallation | undefined> {
    const key = installationKey(ref);
    if (!key) return undefined;
    const record = await readRecord(key);
    if (!record) return undefined;
    const opened = Opened.safeParse(await box.open(record.sealed, recordKey(key)));
    if (!opened.success) return undefined;
    const installation = opened.data as unknown as Installation;
    return { installation, ...(record.lifetimeSeconds ? { lifetimeSeconds: record.lifetimeSeconds } : {}) };
  }

  async function storeOne(installation: Installation, lifetimeGiven?: number): Promise<void> {
    const key = installationKey(refOfInstallation(installation));
    if (!key) throw new Error("Slack's installation names neither a workspace nor an org-wide install");
    const earlier = await readRecord(key);
    const team = namedOf(installation.team);
    const enterprise = namedOf(installation.enterprise);
    const expiresAt = installation.bot?.expiresAt;
    // Slack's expires_in: given by a refresh, or (an install, whose expiry @slack/oauth counted from whole seconds) read back.
    const lifetime = lifetimeGiven ?? (expiresAt === undefined ? undefined : Math.ceil(expiresAt - clock() / 1000));
    const summary: InstalledWorkspace = {
      key,
      ...(team ? { team } : {}),
      ...(enterprise ? { enterprise } : {}),
      orgInstall: installation.isEnterpriseInstall === true,
      installedAt: earlier?.summary.installedAt ?? clock(),
      scopes: installation.bot?.scopes ?? [],
      ...(installation.bot?.userId ? { botUserId: installation.bot.userId } : {}),
      rotating: installation.bot?.refreshToken !== undefined,
    };
    const sealed = await box.seal(installation, recordKey(key));
    const lifetimeSeconds = lifetime !== undefined && lifetime > 0 ? lifetime : earlier?.lifetimeSeconds;
    await store.set(recordKey(key), { summary, sealed, ...(lifetimeSeconds ? { lifetimeSeconds } : {}) });
    await store.addToSet(LISTING, key);
  }

  async function deleteOne(ref: WorkspaceRef): Promise<boolean> {
    const key = installationKey(ref);
    if (!key) return false;
    const deleted = await store.delete(recordKey(key));
    await store.removeFromSet(LISTING, key);
    return deleted;
  }

  return {
    fetch,
    store: storeOne,
    delete: deleteOne,
    list: () => listInstalls(store),
    // Bolt's and @slack/oauth's side of the same store.
    async storeInstallation(installation) {
      await storeOne(installation as Installation);
    },
    async fetchInstallation(query: InstallationQuery<boolean>) {
      const found = await fetch(refOfQuery(query));
      if (!found) throw new Error("this workspace has no installation of the app");
      return found.installation;
    },
    async deleteInstallation(query: InstallationQuery<boolean>) {
      await deleteOne(refOfQuery(query));
    },
  };
}
