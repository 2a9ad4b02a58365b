// Whether an answer may be posted where it was asked: every place it quotes must be readable by
// everyone who can read the destination, or it is held (CROSS_CHANNEL_READS). A place the
// platform could not describe counts as not readable: unsure means held. Pure.
import type { Audience } from "../api/audiences.js";

export type CrossChannelReads = "ask" | "private" | "allow";

/** A channel the answer quotes, with who can see it. */
export interface QuotedPlace {
  readonly channel: string;
  readonly audience: Audience;
}

export type HoldDecision =
  | { readonly kind: "post" }
  /** `places`: the quoted channels not everyone at the destination can see; `action`: ask the requester, or send it to them privately. */
  | { readonly kind: "hold"; readonly places: readonly string[]; readonly action: "ask" | "private" };

/** Whether everyone who can see `destination` can see `source`. */
export function covers(source: Audience, destination: Audience): boolean {
  if (source.kind === "unknown" || destination.kind === "unknown") return false;
  if (source.kind === "everyone") return true;
  if (destination.kind === "everyone") return false;
  return [...destination.members].every((member) => source.members.has(member));
}

export function holdDecision(mode: CrossChannelReads, destination: Audience, quoted: readonly QuotedPlace[]): HoldDecision {
  if (mode === "allow") return { kind: "post" };
  const places = quoted.filter((place) => !covers(place.audience, destination)).map((place) => place.channel);
  return places.length === 0 ? { kind: "post" } : { kind: "hold", places, action: mode };
}
