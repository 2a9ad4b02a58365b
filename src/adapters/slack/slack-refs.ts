// How the Slack side names a message it posted or one that was clicked, shared by the display,
// the click parser and the approval message (which settles either).

/** A message the bot posted (the approval card's reference). */
export interface MessageRef {
  readonly channel: string;
  readonly ts: string;
}

/** What the core hands back to settle or link to a clicked message. */
export interface SlackClicked {
  readonly channel: string;
  readonly ts: string;
  /** The clicked message's blocks, as Slack sent them (untrusted). */
  readonly blocks?: unknown;
  readonly triggerId?: string;
}
