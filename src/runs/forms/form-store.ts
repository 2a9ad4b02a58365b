// The questions runs put to their requesters, in the shared store: the form as it was asked
// (any process can show it and check an answer), its one answer (claimed with set-if-absent, so
// a double click, two processes or an expiry racing a click settle it once), and a lease the
// waiting process renews: the server's question lives only in that process's connection, so a
// form whose lease ran out can no longer be answered, whatever the record says.
import { z } from "zod";
import type { KeyValueStore } from "../../memory/types.js";
import type { PendingForm } from "../../contracts/types.js";
import { PersonSchema, RunStateSchema } from "../../agent/loop/run-state.js";

/** An answered form is remembered this long, so a late click learns what became of it. */
const ANSWER_MEMORY_MS = 24 * 60 * 60_000;
/** A form's record outlives its expiry a while, so a late click is told it expired rather than "unknown". */
const EXPIRED_FORM_GRACE_MS = 60 * 60_000;
const FORM_ID = /^frm_[A-Za-z0-9_-]{8,40}$/;

const FieldBase = { name: z.string(), label: z.string(), description: z.string().optional(), required: z.boolean() };
const FieldSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("text"),
    ...FieldBase,
    default: z.string().optional(),
    minLength: z.number().optional(),
    maxLength: z.number().optional(),
    format: z.enum(["email", "uri", "date", "date-time"]).optional(),
  }),
  z.object({
    kind: z.literal("number"),
    ...FieldBase,
    integer: z.boolean(),
    default: z.number().optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
  }),
  z.object({ kind: z.literal("boolean"), ...FieldBase, default: z.boolean().optional() }),
  z.object({
    kind: z.literal("choice"),
    ...FieldBase,
    options: z.array(z.object({ value: z.string(), label: z.string() })),
    default: z.string().optional(),
  }),
  z.object({
    kind: z.literal("choices"),
    ...FieldBase,
    options: z.array(z.object({ value: z.string(), label: z.string() })),
    default: z.array(z.string()).optional(),
    minItems: z.number().optional(),
    maxItems: z.number().optional(),
  }),
]);
const QuestionSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("form"), server: z.string(), message: z.string(), fields: z.array(FieldSchema) }),
  z.object({ kind: z.literal("url"), server: z.string(), message: z.string(), url: z.string() }),
]);
const FormSchema = z.object({
  formId: z.string().regex(FORM_ID),
  runId: z.string(),
  callId: z.string().optional(),
  question: QuestionSchema,
  requester: PersonSchema,
  origin: RunStateSchema.shape.origin,
  expiresAt: z.number(),
});
const ClaimSchema = z.object({
  action: z.enum(["accept", "decline", "cancel"]),
  reason: z.enum(["dismissed", "timeout", "stopped", "unavailable", "withdrawn"]).optional(),
  by: PersonSchema.optional(),
  /** Only until the waiting process took them: the values are for the server, not for the store. */
  values: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
  at: z.number(),
});
export type FormClaim = z.infer<typeof ClaimSchema>;

export type FormLoad = { readonly kind: "found"; readonly form: PendingForm } | { readonly kind: "missing" };

export interface FormStore {
  save(form: PendingForm): Promise<void>;
  load(formId: string): Promise<FormLoad>;
  /** True when this claim settled the form; otherwise the claim that was there first. */
  claim(formId: string, claim: FormClaim): Promise<{ readonly won: true } | { readonly won: false; readonly existing?: FormClaim }>;
  answerOf(formId: string): Promise<FormClaim | undefined>;
  /** Keeps the claim (what became of the form) without the values, once the server has them. */
  forgetValues(formId: string, claim: FormClaim): Promise<void>;
  /** The waiting process (`owner`, one per process) is alive and holds the server's question for `ttlMs` more. */
  renewLease(formId: string, owner: string, ttlMs: number): Promise<void>;
  leaseHeld(formId: string): Promise<boolean>;
  /** The process holding the form's question, while its lease lasts. */
  leaseOwner(formId: string): Promise<string | undefined>;
  /** The forms a run asked, so a process that takes the run over can close those its predecessor left. */
  formsOfRun(runId: string): Promise<readonly string[]>;
  dropLease(formId: string): Promise<void>;
}

const formKey = (formId: string) => `form:${formId}`;
const answerKey = (formId: string) => `form:answer:${formId}`;
const leaseKey = (formId: string) => `form:lease:${formId}`;
const runKey = (runId: string) => `form:run:${runId}`;

export const isFormId = (formId: string): boolean => FORM_ID.test(formId);

export function createFormStore(store: KeyValueStore, clock: () => number): FormStore {
  const answerOf = async (formId: string): Promise<FormClaim | undefined> => {
    if (!isFormId(formId)) return undefined;
    const parsed = ClaimSchema.safeParse(await store.get(answerKey(formId)));
    return parsed.success ? parsed.data : undefined;
  };
  return {
    async save(form) {
      const ttl = Math.max(1, form.expiresAt - clock()) + EXPIRED_FORM_GRACE_MS;
      await store.addToSet(runKey(form.runId), form.formId, ttl);
      await store.set(formKey(form.formId), form, ttl);
    },
    async formsOfRun(runId) {
      return (await store.setMembers(runKey(runId))).filter(isFormId);
    },
    async load(formId) {
      if (!isFormId(formId)) return { kind: "missing" };
      const parsed = FormSchema.safeParse(await store.get(formKey(formId)));
      return parsed.success ? { kind: "found", form: parsed.data as PendingForm } : { kind: "missing" };
    },
    async claim(formId, claim) {
      if (await store.setIfAbsent(answerKey(formId), claim, ANSWER_MEMORY_MS)) return { won: true };
      return { won: false, existing: await answerOf(formId) };
    },
    answerOf,
    async forgetValues(formId, claim) {
      const { values: _values, ...kept } = claim;
      await store.set(answerKey(formId), kept, ANSWER_MEMORY_MS);
    },
    renewLease: (formId, owner, ttlMs) => store.set(leaseKey(formId), owner, ttlMs),
    leaseHeld: async (formId) => (await store.get(leaseKey(formId))) !== undefined,
    async leaseOwner(formId) {
      const owner = await store.get(leaseKey(formId));
      return typeof owner === "string" ? owner : undefined;
    },
    async dropLease(formId) {
      await store.delete(leaseKey(formId));
    },
  };
}
