// Who can see a place, as the platform says now: what decides whether an answer that quotes one
// place may be posted in another (runs/holds). A surface reads it (Slack's member lists, Discord's
// permissions); nothing is assumed, so a platform that can't tell says "unknown", and that holds.
import type { TaskOrigin } from "../../contracts/types.js";

export type Audience =
  /** Anyone of the workspace (server) may read it: a public channel. */
  | { readonly kind: "everyone" }
  /** Only these people (and the bot): a private channel, a DM, a group DM. */
  | { readonly kind: "members"; readonly members: ReadonlySet<string> }
  /** The platform did not say (an error, a missing scope, too many members to read). */
  | { readonly kind: "unknown"; readonly why: string };

export interface AudienceReader {
  /** The channel where the run of `origin` posts its answer; undefined where there is no channel (the console). */
  destinationOf(origin: TaskOrigin): string | undefined;
  /** Who can see `channel` in the workspace of `origin`. Never throws: a failure is "unknown". */
  audienceOf(origin: TaskOrigin, channel: string): Promise<Audience>;
}
