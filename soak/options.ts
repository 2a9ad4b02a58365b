// The soak's command line: `npm run soak -- --minutes 10 --seed 7 [--processes 3]
// [--conversations 6] [--skip junk,redis]`. Checked with zod: a bad value stops with one line.
import { parseArgs } from "node:util";
import { z } from "zod";

export const FAULT_KINDS = ["kill", "term", "redis", "slack429", "slack500", "junk"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface SoakOptions {
  readonly minutes: number;
  readonly seed: number;
  readonly processes: number;
  /** Conversations in flight at once. */
  readonly conversations: number;
  /** Faults not injected (to tell which fault a failure comes from). */
  readonly skip: ReadonlySet<FaultKind>;
}

const Options = z.object({
  minutes: z.coerce.number({ error: "expects a number of minutes" }).positive("expects more than 0 minutes").max(240).default(2),
  seed: z.coerce
    .number({ error: "expects a whole number" })
    .int("expects a whole number")
    .min(0)
    .max(2 ** 31)
    .optional(),
  processes: z.coerce.number().int("expects a whole number").min(2, "expects at least 2 processes").max(8).default(3),
  conversations: z.coerce.number().int("expects a whole number").min(1).max(50).default(6),
  skip: z
    .string()
    .default("")
    .transform((value) =>
      value
        .split(",")
        .map((part) => part.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(FAULT_KINDS, { error: `expects a list of ${FAULT_KINDS.join(", ")}` }))),
});

/** Throws an Error whose message is the one line to print. */
export function parseSoakOptions(argv: readonly string[]): SoakOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      minutes: { type: "string" },
      seed: { type: "string" },
      processes: { type: "string" },
      conversations: { type: "string" },
      skip: { type: "string" },
    },
    strict: true,
  });
  const parsed = Options.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`--${String(issue.path[0] ?? "options")} ${issue.message}`);
  }
  const { seed, skip, ...rest } = parsed.data;
  return { ...rest, seed: seed ?? Math.floor(Math.random() * 1_000_000), skip: new Set(skip) };
}
