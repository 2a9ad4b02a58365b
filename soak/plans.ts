// What the model does with each message, decided from the seed and the message's number alone,
// so the checker knows what to expect: answer at once, read the channel, ask for an approved
// write (post_message), make a policy-allowed write (the ledger's `record`, with a slow read in
// the same reply: the window where a crash used to repeat it), or work slowly until Stop. Pure.
import { hashOf } from "./random.js";

export type PlanKind = "answer" | "read" | "approved" | "allowed" | "stop" | "talk";

export interface Plan {
  readonly kind: PlanKind;
  /** How long each model reply takes. */
  readonly modelDelayMs: number;
}

export interface PlannedCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/** Where the talk conversations go (talk.ts): its settings steer, and its runs take a while, so there is a run to steer. */
export const TALK_CHANNEL = "C0SOAKTALK";
export const TALK_PLAN: Plan = { kind: "talk", modelDelayMs: 400 };
const LOOKUP_WHILE_TALKING_MS = 1_500;

/** Where approved writes post: every post there is a write the checker counts. */
export const WRITE_CHANNEL = "C0SOAKLOG";
export const LEDGER_RECORD = "ledger__record";
export const LEDGER_LOOKUP = "ledger__lookup";

const WEIGHTS: ReadonlyArray<readonly [PlanKind, number]> = [
  ["answer", 20],
  ["read", 20],
  ["approved", 20],
  ["allowed", 25],
  ["stop", 15],
];
const TOTAL_WEIGHT = WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);
/** Below the 1 s a run stopped by a person gives its summary call, so the summary comes from the model. */
const STOP_MODEL_DELAY_MS = 300;
const LOOKUP_WITH_WRITE_MS = 1_500;
const LOOKUP_UNTIL_STOPPED_MS = 5_000;

/** Message n's plan, in its channel: every message of the talk channel talks. */
export function planIn(seed: number, n: number, channel: string | undefined): Plan {
  return channel === TALK_CHANNEL ? TALK_PLAN : planFor(seed, n);
}

export function planFor(seed: number, n: number): Plan {
  let draw = hashOf(seed, "plan", n) % TOTAL_WEIGHT;
  let kind: PlanKind = "answer";
  for (const [candidate, weight] of WEIGHTS) {
    if (draw < weight) {
      kind = candidate;
      break;
    }
    draw -= weight;
  }
  const modelDelayMs = kind === "stop" ? STOP_MODEL_DELAY_MS : 50 + (hashOf(seed, "delay", n) % 750);
  return { kind, modelDelayMs };
}

/** The text of message n's approved write: its idempotency key is `m<n>`. */
export const writeText = (n: number): string => `soak-write m${n} approved`;

/** The model's replies with tool calls, step by step; after the last one it answers. */
export function plannedSteps(kind: PlanKind, n: number, channel: string): PlannedCall[][] {
  switch (kind) {
    case "answer":
      return [];
    case "read":
      return [[{ name: "read_channel", args: { channel, limit: 5 } }]];
    case "approved":
      return [[{ name: "post_message", args: { channel: WRITE_CHANNEL, text: writeText(n) } }]];
    case "allowed":
      return [
        [
          { name: LEDGER_RECORD, args: { key: `m${n}` } },
          { name: LEDGER_LOOKUP, args: { ms: LOOKUP_WITH_WRITE_MS } },
        ],
      ];
    case "talk":
      return [[{ name: LEDGER_LOOKUP, args: { ms: LOOKUP_WHILE_TALKING_MS } }]];
    case "stop":
      return [
        [{ name: LEDGER_LOOKUP, args: { ms: LOOKUP_UNTIL_STOPPED_MS } }],
        [{ name: LEDGER_LOOKUP, args: { ms: LOOKUP_UNTIL_STOPPED_MS } }],
      ];
  }
}
