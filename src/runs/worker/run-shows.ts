// What a worker needs of the surfaces to show a run: the caller waiting for it in this process
// (a caller of `ask`, a click being handled here), or else the surface's presenter built from the
// run's origin, so a worker that did not receive the event (another process, or after a restart)
// can still show progress and answer in the right place. With neither there is no one to show it
// to: the item is not run (see canShow), so it is never marked done unseen. The service's surface
// registry (service/surface-registry.ts) is what answers.
import type { PendingApproval, RunOutcome, EventSink, Surface, TaskOrigin } from "../../contracts/types.js";
import type { NoteLink, RunPresenter } from "../api/presenting.js";
import type { OriginUpgrade } from "../api/surface-hooks.js";
import type { ReplyHandle } from "../api/task.js";

export interface RunShows {
  /** Registers a caller here waiting under `key`; the promise settles when the work under that key presents. */
  wait(key: string, sink: EventSink): Promise<RunOutcome>;
  /**
   * The local waiter under `key` if there is one, else the surface's presenter for `origin`
   * (answering through `reply`); throws SurfaceUnavailableError when neither is here.
   */
  presenterFor(key: string, origin: TaskOrigin, question: string, reply?: ReplyHandle): RunPresenter;
  /** True when the work under `key` can be shown here: a caller waits for it, or its surface registered a presenter. */
  canShow(key: string, surface: Surface): boolean;
  /** True when a caller in this process waits under `key`. */
  isWaiting(key: string): boolean;
  /**
   * Shows a refusal (access, a limit; `outcome` answers with its text): to the local waiter under
   * `key`, else privately through the surface's refusal note, else as the surface's answer.
   */
  refuse(
    key: string,
    origin: TaskOrigin,
    question: string,
    outcome: Extract<RunOutcome, { status: "answered" }>,
    reply?: ReplyHandle,
  ): Promise<void>;
  /** True when the surface shows an approval that expired with no caller waiting (it registered an expiry handler). */
  showsExpiry(surface: Surface): boolean;
  /** An approval ended by expiry that no caller here waited for. Never throws. */
  expired(surface: Surface, pending: PendingApproval, outcome: RunOutcome): void;
  /** Tells the requester of `origin` privately, through its surface (`link` as a button where it shows one); false when the surface can't. Never throws. */
  tell?(origin: TaskOrigin, text: string, link?: NoteLink): Promise<boolean>;
  /** Reads an origin loaded from the store as this version does (a record of an older version gets its scope). */
  readonly upgrade: OriginUpgrade;
}
