// Every area of the configuration, in the order docs/configuration.md shows them. A new
// variable goes into its area's file; a new area goes here.
import type { Area, Simplify } from "./area.js";
import { approvalsArea } from "./approvals.js";
import { conversationsArea } from "./conversations.js";
import { discordArea } from "./discord.js";
import { explorerArea } from "./explorer.js";
import { filesArea } from "./files.js";
import { guardsArea } from "./guards.js";
import { memoryArea } from "./memory.js";
import { modelArea } from "./model.js";
import { opsArea } from "./ops.js";
import { publicAddressArea } from "./public-address.js";
import { recordsArea } from "./records.js";
import { schedulesArea } from "./schedules.js";
import { slackArea } from "./slack.js";
import { storeArea } from "./store.js";
import { toolsArea } from "./tools.js";
import { untrustedContentArea } from "./untrusted-content.js";
import type { ValueOf } from "./variable.js";

export const AREAS = [
  modelArea,
  guardsArea,
  storeArea,
  memoryArea,
  filesArea,
  toolsArea,
  approvalsArea,
  untrustedContentArea,
  conversationsArea,
  opsArea,
  publicAddressArea,
  schedulesArea,
  recordsArea,
  explorerArea,
  slackArea,
  discordArea,
] as const;

type AnyArea = (typeof AREAS)[number];

type VariableIn<A> = A extends Area<infer V, unknown> ? V[keyof V] : never;

/** The parsed environment, by variable name: what the cross-field rules read. */
export type Env = { readonly [V in VariableIn<AnyArea> as V["name"]]: ValueOf<V> };

type Intersection<U> = (U extends unknown ? (part: U) => void : never) extends (part: infer I) => void ? I : never;

/** Each area's part, side by side. */
export type Config = Simplify<Intersection<ReturnType<AnyArea["read"]>>>;
