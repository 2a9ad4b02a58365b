// What an approval card says of where a write's arguments came from (PendingApproval.provenance),
// the same on every surface: a warning line first, then one line per origin ("text: text copied
// from a message by @mallory in #general"), at most a few, each bounded, so the card stays within
// its platform's limits and the arguments still fit below. Pure.
import type { PendingApproval } from "../../contracts/types.js";
import { personName } from "../../contracts/source-label.js";
import { originLine } from "../../agent/context/write-origins.js";

/** More origins than this are counted, not listed: the card is read at a glance. */
const MAX_LINES = 5;
/** One origin line at most: a label's names are bounded, an argument's path is the model's. */
const LINE_MAX_CHARS = 200;

export interface OriginNotes {
  /** Why the person should look twice before approving. */
  readonly warning: string;
  readonly lines: readonly string[];
}

function bounded(line: string): string {
  return line.length <= LINE_MAX_CHARS ? line : `${line.slice(0, LINE_MAX_CHARS - 1)}…`;
}

function warningOf(pending: PendingApproval, destination: boolean, otherApprover: boolean): string {
  const requester = personName(pending.requester);
  const what = destination
    ? `Where this write goes was named by content someone other than ${requester} wrote, not by their request.`
    : `This write copies content someone other than ${requester} wrote.`;
  const who = otherApprover ? ` An approver other than ${requester} must approve it.` : " Check it before approving.";
  return `${what}${who}`;
}

/** The card's origin notes, or none for a write whose arguments are all the requester's own. */
export function originNotes(pending: PendingApproval): OriginNotes | undefined {
  const provenance = pending.provenance;
  if (!provenance) return undefined;
  const destination = provenance.origins.some((origin) => origin.role === "destination");
  const all = [...new Set(provenance.origins.map((origin) => bounded(originLine(origin))))];
  const more = all.length - MAX_LINES;
  const lines = more > 0 ? [...all.slice(0, MAX_LINES - 1), `…and ${more + 1} more`] : all;
  return { warning: warningOf(pending, destination, provenance.needs === "other_approver"), lines };
}
