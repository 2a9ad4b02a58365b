// Everything a surface brings to the runs, registered once at attach: its chat tools, how its
// runs are shown, how its thread context and files are read, and how an older record's origin
// is read by this version.
import type { SourcedText } from "../../contracts/provenance.js";
import type { TaskOrigin, Tool } from "../../contracts/types.js";
import type { SurfaceFiles } from "../../files/file-ref.js";
import type { AudienceReader } from "./audiences.js";
import type { ExpiryHandler, NoteLink, PresenterFactory, RefusalNote } from "./presenting.js";
import type { ReplyHandle } from "./task.js";

/**
 * Reads a task's thread context from its `contextSource` when its run starts: each message with
 * where it came from (the requester's own, or another person's). Must not throw (no context: []).
 */
export type ContextLoader = (source: Readonly<Record<string, string>>, origin: TaskOrigin) => Promise<readonly SourcedText[]>;

/** An origin stored by an older version, as this version reads it: with its scope, and no secret left in its place. */
export type OriginUpgrade = (origin: TaskOrigin) => { readonly origin: TaskOrigin; readonly reply?: ReplyHandle };

/** How a text for one person alone went: as a direct message, or where they asked, shown to them alone. */
export type PrivateDelivery = "direct message" | "here, to them alone";

/** Everything a surface brings to the runs, registered once (src/adapters/core/attach.ts). */
export interface SurfaceHooks {
  /** The surface's chat tools (read_channel, post_message…). */
  readonly tools: readonly Tool[];
  /** Shows runs no caller in this process waits for (submitted, resumed after a restart or on another process). */
  readonly present?: PresenterFactory;
  /** Tells a refused asker privately; without it the refusal is the run's answer. */
  readonly refuse?: RefusalNote;
  readonly loadContext?: ContextLoader;
  /** A pending approval on this surface expired without a decision (the run's summary is in the outcome). */
  readonly expired?: ExpiryHandler;
  readonly upgrade?: OriginUpgrade;
  /** Tells the requester of `origin` something only they may see (a Connect link, as a button where the surface shows one), privately. Never throws. */
  readonly tell?: (origin: TaskOrigin, text: string, link?: NoteLink) => Promise<void>;
  /** Who can see a place here, for an answer that quotes one (runs/holds); absent: nothing is held on this surface (the console). */
  readonly audiences?: AudienceReader;
  /** A held answer's preview to its requester alone, with Post here / Send to me privately / Drop for `runId`; false when not shown. Never throws. */
  readonly offerHeld?: (origin: TaskOrigin, preview: string, runId: string) => Promise<boolean>;
  /** Sends `text` to the requester of `origin` alone (a held answer), in as many messages as it takes: how it went, undefined when it could not. Never throws. */
  readonly sendPrivately?: (origin: TaskOrigin, text: string) => Promise<PrivateDelivery | undefined>;
  /** Posts `text` for everyone where the run of `origin` was asked (a held answer its requester chose to post); false when refused. Never throws. */
  readonly postHere?: (origin: TaskOrigin, text: string) => Promise<boolean>;
  /**
   * How this surface's attachments are fetched and whether it posts an answer's files; without it a
   * task's files are notes and read_attachment / attach_file are not offered. Give it in every role that runs work.
   */
  readonly files?: SurfaceFiles;
}
