// A text's source as a run record keeps it (contracts/provenance.ts): stored records are read
// back untrusted, so the shape is checked like the rest of the record.
import { z } from "zod";
import type { TextSource } from "../../contracts/provenance.js";

const Person = z.object({ id: z.string().max(200), name: z.string().max(500).optional() });
/** The longest name (a channel, a file, a tool, a server) a stored source keeps; whoever makes a source cuts to it. */
export const SOURCE_NAME_MAX = 1_000;
const NAME = z.string().max(SOURCE_NAME_MAX);

/** Every kind of source, in one schema for run records and for the sources a run's checkpoint keeps. */
export const TextSourceSchema: z.ZodType<TextSource> = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("requester"), person: Person }),
  z.object({ kind: z.literal("person"), author: Person, channel: NAME }),
  z.object({ kind: z.literal("file"), name: NAME, sharedBy: Person.optional() }),
  z.object({ kind: z.literal("tool"), tool: NAME, server: NAME.optional(), channel: NAME.optional() }),
  z.object({ kind: z.literal("memory") }),
  z.object({ kind: z.literal("derived"), from: z.enum(["answer", "steps"]) }),
]);
