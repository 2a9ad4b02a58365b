// Names and encodings for the BullMQ work queue. BullMQ refuses integer job ids and ids with
// ':' (conversation keys are full of them), so every id is derived from a hash. Items read
// back from Redis are checked like any other outside input.
import { createHash } from "node:crypto";
import { z } from "zod";
import type { WorkItem } from "./work-queue.js";

const WorkItemSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("run"), conversationKey: z.string().min(1), intakeId: z.string().min(1) }),
  z.object({ kind: z.literal("resume"), conversationKey: z.string().min(1), runId: z.string().min(1), callId: z.string().min(1) }),
  z.object({ kind: z.literal("expire"), conversationKey: z.string().min(1), runId: z.string().min(1), callId: z.string().min(1) }),
]);

export type DecodedItem = { readonly kind: "item"; readonly item: WorkItem } | { readonly kind: "invalid"; readonly reason: string };

export function encodeItem(item: WorkItem): string {
  return JSON.stringify(WorkItemSchema.parse(item));
}

export function decodeItem(raw: string): DecodedItem {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { kind: "invalid", reason: "not JSON" };
  }
  const parsed = WorkItemSchema.safeParse(json);
  return parsed.success
    ? { kind: "item", item: parsed.data }
    : { kind: "invalid", reason: parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ") };
}

/** A conversation's name in Redis keys and job ids: a hash, so no ':' and never a bare integer. */
export function conversationHash(conversationKey: string): string {
  return createHash("sha256").update(conversationKey).digest("hex").slice(0, 32);
}

/** The drain job of one generation of a conversation's mailbox owner. */
export function drainJobId(hash: string, generation: string): string {
  return `drain.${hash}.${generation}`;
}

export function parseDrainJobId(jobId: string): { readonly hash: string; readonly generation: string } | undefined {
  const match = /^drain\.([0-9a-f]{32})\.([0-9a-f]{1,32})$/.exec(jobId);
  return match ? { hash: match[1]!, generation: match[2]! } : undefined;
}

/** A held-back item: one job per item, so adding the same expiry twice while it waits schedules it once. */
export function deliverJobId(encodedItem: string): string {
  return `deliver.${createHash("sha256").update(encodedItem).digest("hex").slice(0, 32)}`;
}

export interface MailboxKeys {
  readonly mailbox: string;
  readonly owner: string;
}

export function mailboxKeys(prefix: string, hash: string): MailboxKeys {
  return { mailbox: `${prefix}:mailbox:${hash}`, owner: `${prefix}:owner:${hash}` };
}

export function counterKeys(prefix: string): { readonly items: string } {
  return { items: `${prefix}:items` };
}

export function ownerPattern(prefix: string): string {
  return `${prefix}:owner:*`;
}

export function hashOfOwnerKey(prefix: string, key: string): string {
  return key.slice(`${prefix}:owner:`.length);
}
