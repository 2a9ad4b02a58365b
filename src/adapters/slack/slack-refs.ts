// How the Slack side names a message it posted or one that was clicked, shared by the display,
// the click parser and the approval message (which settles either). Each names the workspace
// whose installation answers there (with installs, a message is edited with that token only).
import type { WorkspaceRef } from "./install/workspace-ref.js";

/** A message the bot posted (the approval card's reference). */
export interface MessageRef {
  readonly channel: string;
  readonly ts: string;
  /** Absent in references stored before installs, and with SLACK_BOT_TOKEN (one workspace). */
  readonly team?: string;
  readonly enterprise?: string;
  readonly orgInstall?: true;
}

/** What the core hands back to settle or link to a clicked message. */
export interface SlackClicked {
  readonly channel: string;
  readonly ts: string;
  /** The clicked message's blocks, as Slack sent them (untrusted). */
  readonly blocks?: unknown;
  readonly triggerId?: string;
  /** Where the click came from (Bolt's context of it). */
  readonly workspace?: WorkspaceRef;
}
