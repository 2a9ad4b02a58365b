// A text's source as a run record keeps it (contracts/provenance.ts): stored records are read
// back untrusted, so the shape is checked like the rest of the record.
import { z } from "zod";
import type { TextSource } from "../../contracts/provenance.js";

const Person = z.object({ id: z.string(), name: z.string().optional() });

export const TextSourceSchema: z.ZodType<TextSource> = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("requester"), person: Person }),
  z.object({ kind: z.literal("person"), author: Person, channel: z.string() }),
  z.object({ kind: z.literal("file"), name: z.string(), sharedBy: Person.optional() }),
  z.object({ kind: z.literal("tool"), tool: z.string(), server: z.string().optional(), channel: z.string().optional() }),
  z.object({ kind: z.literal("memory") }),
  z.object({ kind: z.literal("derived"), from: z.enum(["answer", "steps"]) }),
]);
