// Erasures of removed workspaces, booked for when UNINSTALL_RETENTION_DAYS have passed: kept in the
// store, so a restart loses none, and carried out once across the processes sharing it; one whose
// workspace installs the bot again is carried out then, so it starts clean. Each
// process looks at the booked ones when it starts, when its timer for the soonest comes, and every
// hour (another process may have booked one). A due erasure is claimed under a lock, checked still
// booked (a process that read the list earlier finds it done), carried out, then unbooked; one that
// fails stays booked and is tried again at the next look. Nothing here throws to its caller.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { Surface } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import type { KeyValueStore } from "../../memory/types.js";
import { chainSettled } from "../../settled-chain.js";

export interface BookedErasure {
  readonly surface: Surface;
  readonly workspace: string;
  /** Epoch ms. */
  readonly dueAt: number;
  /** What installs it again: the Slack installation's key (`T:…`, an org's `E:…`), the Discord server's id. */
  readonly key?: string;
}

export interface WorkspaceErasures {
  /**
   * Books the erasure and resolves; one due already is carried out next, in the background (a platform's
   * event that told of the removal is not held up by it). Never rejects.
   */
  book(erasure: BookedErasure): Promise<void>;
  /** The bot is installed again under `key`: the erasures booked under it are carried out before this resolves. Never rejects. */
  bringForward(key: string): Promise<void>;
  /** Looks at the booked erasures from now on (once). */
  start(): void;
  /** Resolves when no look is in progress (also those begun while waiting). */
  settled(): Promise<void>;
  /** Stops looking and waits for an erasure in progress. */
  close(): Promise<void>;
}

export interface WorkspaceErasuresDeps {
  readonly store: KeyValueStore;
  /** Deletes the workspace's data; rejects when it could not (it is tried again). */
  readonly erase: (surface: Surface, workspace: string) => Promise<unknown>;
  readonly logger: Logger;
  readonly clock?: () => number;
  /** How often the booked erasures are looked at besides the timer of the soonest (another process's bookings). */
  readonly lookEveryMs?: number;
}

const BOOKED = "workspace:erasures";
const claimKey = (member: string) => `workspace:erasure-claim:${member}`;
/** An erasure outlives no claim longer than this: a process that died erasing leaves it to the next look. */
const CLAIM_MS = 15 * 60_000;
const HOUR_MS = 60 * 60_000;
/** Node's longest timer; a later erasure is reached by looking again on the way. */
const MAX_WAIT_MS = 2 ** 31 - 1;
const Booked = z.object({
  surface: z.enum(["console", "slack", "discord"]),
  workspace: z.string().min(1),
  dueAt: z.number(),
  key: z.string().min(1).optional(),
});

const memberOf = (erasure: BookedErasure) =>
  JSON.stringify({
    surface: erasure.surface,
    workspace: erasure.workspace,
    dueAt: erasure.dueAt,
    ...(erasure.key ? { key: erasure.key } : {}),
  } satisfies BookedErasure);

/** Pure: the booked erasures the set lists (a member that does not parse is skipped: the set is untrusted). */
export function bookedIn(members: readonly string[]): Array<BookedErasure & { readonly member: string }> {
  return members.flatMap((member) => {
    try {
      const parsed = Booked.safeParse(JSON.parse(member));
      return parsed.success ? [{ ...parsed.data, member }] : [];
    } catch {
      return [];
    }
  });
}

export function createWorkspaceErasures(deps: WorkspaceErasuresDeps): WorkspaceErasures {
  const { store, logger } = deps;
  const clock = deps.clock ?? Date.now;
  const owner = randomBytes(9).toString("base64url");
  let looking: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let interval: NodeJS.Timeout | undefined;
  let closed = false;

  async function carryOut(erasure: BookedErasure & { readonly member: string }): Promise<void> {
    if (!(await store.setIfAbsent(claimKey(erasure.member), owner, CLAIM_MS))) return;
    try {
      if (!(await store.setMembers(BOOKED)).includes(erasure.member)) return;
      await deps.erase(erasure.surface, erasure.workspace);
      await store.removeFromSet(BOOKED, erasure.member);
    } finally {
      await store.delete(claimKey(erasure.member));
    }
  }

  /** Carries out what is due, then sets the timer for the soonest still booked. */
  async function look(): Promise<void> {
    let booked: ReturnType<typeof bookedIn> = [];
    try {
      booked = bookedIn(await store.setMembers(BOOKED));
    } catch (error) {
      logger.warn({ err: error }, "could not read the booked erasures of removed workspaces; looking again later");
    }
    const now = clock();
    for (const erasure of booked.filter((entry) => entry.dueAt <= now)) {
      if (closed) return;
      await carryOut(erasure).catch((error: unknown) =>
        logger.error(
          { err: error, surface: erasure.surface, workspace: erasure.workspace },
          "could not delete a removed workspace's data; trying again later",
        ),
      );
    }
    const soonest = Math.min(...booked.filter((entry) => entry.dueAt > now).map((entry) => entry.dueAt));
    if (closed || !Number.isFinite(soonest)) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void lookNow(), Math.min(MAX_WAIT_MS, soonest - now));
    timer.unref();
  }

  /** One look at a time in this process. */
  function lookNow(): Promise<void> {
    looking = looking.then(look);
    return looking;
  }

  return {
    async book(erasure) {
      try {
        await store.addToSet(BOOKED, memberOf(erasure));
      } catch (error) {
        return void logger.error(
          { err: error, surface: erasure.surface, workspace: erasure.workspace },
          "could not book the deletion of a removed workspace's data",
        );
      }
      void lookNow();
    },
    async bringForward(key) {
      try {
        const now = clock();
        for (const erasure of bookedIn(await store.setMembers(BOOKED)).filter((entry) => entry.key === key && entry.dueAt > now)) {
          // The earlier booking goes once the one due now is in: a crash between the two leaves both, carried out alike.
          const { member, ...booked } = erasure;
          await store.addToSet(BOOKED, memberOf({ ...booked, dueAt: now }));
          await store.removeFromSet(BOOKED, member);
        }
      } catch (error) {
        logger.error({ err: error, key }, "could not bring forward the deletion of a workspace's earlier data");
      }
      await lookNow();
    },
    start() {
      if (interval || closed) return;
      interval = setInterval(() => void lookNow(), deps.lookEveryMs ?? HOUR_MS);
      interval.unref();
      void lookNow();
    },
    settled: () => chainSettled(() => looking),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      if (interval) clearInterval(interval);
      await looking;
    },
  };
}
