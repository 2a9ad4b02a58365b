// A person opens or answers a server's form, from any process: only the run's requester may
// (anyone else changes nothing), a form is answered once (the claim), an answer is checked
// against the fields with the defaults applied, and a form whose waiting process is gone (a
// restart: the server's question died with its connection) is closed as such, not left open.
import { plainValues } from "../../contracts/forms.js";
import type { Person, PendingForm } from "../../contracts/types.js";
import type { FormClaim, FormStore } from "./form-store.js";
import { cancelClaim } from "./person-forms.js";
import { readValues, type FormInput } from "./form-values.js";

export interface FormReply {
  readonly formId: string;
  readonly by: Person;
  readonly action: "accept" | "decline" | "cancel";
  /** With accept: what the person entered, by field name. */
  readonly inputs?: Readonly<Record<string, FormInput>>;
}

/** Why a form can't be answered any more. */
export type FormClosed =
  | { readonly kind: "unknown" }
  | { readonly kind: "answered"; readonly action: "accept" | "decline" | "cancel"; readonly by?: Person }
  | { readonly kind: "expired" }
  | { readonly kind: "stopped" }
  /** The server took its question back (it cancelled it, or its call ended). */
  | { readonly kind: "withdrawn" }
  /** The process that held the server's question ended (a restart): nobody can answer it now. */
  | { readonly kind: "restarted" };

export type FormLookup =
  | { readonly kind: "open"; readonly form: PendingForm }
  | { readonly kind: "not_requester"; readonly form: PendingForm }
  | { readonly kind: "closed"; readonly form?: PendingForm; readonly closed: FormClosed };

export type FormReplyResult =
  | FormLookup
  | { readonly kind: "answered"; readonly form: PendingForm; readonly action: FormReply["action"] }
  | {
      readonly kind: "invalid";
      readonly form: PendingForm;
      readonly problems: readonly string[];
      /** Each field's problem by its name. */
      readonly fields: Readonly<Record<string, string>>;
    };

export interface FormAnswers {
  /** The form `person` may open now, or why not. Never changes anything but a form left by a dead process (closed). */
  lookup(formId: string, person: Person): Promise<FormLookup>;
  reply(reply: FormReply): Promise<FormReplyResult>;
}

function closedBy(claim: FormClaim): FormClosed {
  if (claim.action !== "cancel" || claim.by) return { kind: "answered", action: claim.action, ...(claim.by ? { by: claim.by } : {}) };
  if (claim.reason === "timeout") return { kind: "expired" };
  if (claim.reason === "stopped") return { kind: "stopped" };
  if (claim.reason === "unavailable") return { kind: "restarted" };
  if (claim.reason === "withdrawn") return { kind: "withdrawn" };
  return { kind: "answered", action: "cancel" };
}

export function createFormAnswers(deps: { forms: FormStore; clock: () => number; notify: (formId: string) => void }): FormAnswers {
  const { forms, clock } = deps;

  async function lookup(formId: string, person: Person): Promise<FormLookup> {
    const loaded = await forms.load(formId);
    if (loaded.kind === "missing") return { kind: "closed", closed: { kind: "unknown" } };
    const { form } = loaded;
    if (form.requester.id !== person.id) return { kind: "not_requester", form };
    const claim = await forms.answerOf(formId);
    if (claim) return { kind: "closed", form, closed: closedBy(claim) };
    if (clock() >= form.expiresAt) return { kind: "closed", form, closed: { kind: "expired" } };
    if (!(await forms.leaseHeld(formId))) {
      const won = await forms.claim(formId, cancelClaim("unavailable", clock()));
      return { kind: "closed", form, closed: won.won || !won.existing ? { kind: "restarted" } : closedBy(won.existing) };
    }
    return { kind: "open", form };
  }

  return {
    lookup,
    async reply(reply) {
      const found = await lookup(reply.formId, reply.by);
      if (found.kind !== "open") return found;
      const { form } = found;
      let claim: FormClaim;
      if (reply.action === "accept" && form.question.kind === "form") {
        const read = readValues(form.question.fields, reply.inputs ?? {});
        if (!read.ok) return { kind: "invalid", form, problems: read.problems, fields: read.fields };
        claim = { action: "accept", by: reply.by, values: plainValues(read.values), at: clock() };
      } else if (reply.action === "cancel") claim = { action: "cancel", reason: "dismissed", by: reply.by, at: clock() };
      else claim = { action: reply.action, by: reply.by, at: clock() };
      const won = await forms.claim(form.formId, claim);
      if (!won.won) return { kind: "closed", form, closed: won.existing ? closedBy(won.existing) : { kind: "unknown" } };
      deps.notify(form.formId);
      return { kind: "answered", form, action: reply.action };
    },
  };
}
