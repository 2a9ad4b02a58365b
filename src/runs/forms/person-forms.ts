// How a run waits for its requester's answer to a server's question: the form is kept in the
// store (any process can take the answer), and the waiting process looks for the answer — at once
// when it is given here, by polling the store when another process took it — until the form's
// expiry (MCP_ELICITATION_TIMEOUT_MS), a Stop or the server withdrawing its question cancels it.
// Each of those is a claim, so an answer and the expiry racing each other settle the form once.
// While it waits the process renews the form's lease: a form outlived by its process is closed as
// "ended by a restart", and so are the forms a run left when another process takes the run over.
import { randomBytes } from "node:crypto";
import type { FormAnswer, PendingForm, PersonForms } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import type { FormClaim, FormStore } from "./form-store.js";

export interface PersonFormsOptions {
  readonly forms: FormStore;
  readonly timeoutMs: number;
  readonly logger: Logger;
  readonly clock: () => number;
  /** How often another process's answer is looked for. */
  readonly pollMs?: number;
  /** How long a lease lasts; it is renewed at a third of that. */
  readonly leaseMs?: number;
}

export interface LocalPersonForms extends PersonForms {
  /** Wakes this process's wait for `formId` at once (an answer claimed here). */
  notify(formId: string): void;
}

const DEFAULT_POLL_MS = 500;
/** Short, so a form outlived by its process closes soon; renewed every 2 s while its process waits. */
export const DEFAULT_LEASE_MS = 6_000;

const newFormId = () => `frm_${randomBytes(12).toString("base64url")}`;

/** The answer a claim stands for. */
export function answerOfClaim(claim: FormClaim): FormAnswer {
  if (claim.action === "accept") return { action: "accept", values: claim.values ?? {}, by: claim.by ?? { id: "unknown" } };
  if (claim.action === "decline") return { action: "decline", by: claim.by ?? { id: "unknown" } };
  return { action: "cancel", reason: claim.reason ?? "dismissed", ...(claim.by ? { by: claim.by } : {}) };
}

export function createPersonForms(options: PersonFormsOptions): LocalPersonForms {
  const { forms, logger, clock } = options;
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const wakers = new Map<string, () => void>();
  /** This process, as the holder of the questions it waits on. */
  const owner = randomBytes(9).toString("base64url");

  /**
   * A run this process drives again (taken over after a restart) left forms whose questions died with the process
   * that asked them: they are closed as such, so a late click says so instead of opening a form nobody waits for.
   */
  async function closeLeftBehind(runId: string): Promise<void> {
    for (const formId of await forms.formsOfRun(runId)) {
      if ((await forms.answerOf(formId)) !== undefined) continue;
      if ((await forms.leaseOwner(formId)) === owner) continue;
      await forms.claim(formId, cancelClaim("unavailable", clock()));
      await forms.dropLease(formId);
    }
  }

  async function settle(form: PendingForm, claim: FormClaim): Promise<FormAnswer> {
    const won = await forms.claim(form.formId, claim);
    const final = won.won ? claim : (won.existing ?? claim);
    return taken(form, final);
  }

  /** The answer goes to the server; the store keeps only what became of the form. */
  async function taken(form: PendingForm, claim: FormClaim): Promise<FormAnswer> {
    if (claim.values) await forms.forgetValues(form.formId, claim).catch(() => undefined);
    await forms.dropLease(form.formId).catch(() => undefined);
    return answerOfClaim(claim);
  }

  async function waitForClaim(form: PendingForm, signal: AbortSignal, withdrawn: AbortSignal | undefined): Promise<FormAnswer> {
    // The lease lives in the store's real time, whatever clock the expiry is read from.
    let renewedAt = performance.now();
    for (;;) {
      const claim = await forms.answerOf(form.formId);
      if (claim) return taken(form, claim);
      if (signal.aborted) return settle(form, cancelClaim("stopped", clock()));
      if (withdrawn?.aborted) return settle(form, cancelClaim("withdrawn", clock()));
      if (clock() >= form.expiresAt) return settle(form, cancelClaim("timeout", clock()));
      if (performance.now() - renewedAt >= leaseMs / 3) {
        renewedAt = performance.now();
        await forms.renewLease(form.formId, owner, leaseMs);
      }
      await pause(
        form.formId,
        Math.min(pollMs, Math.max(0, form.expiresAt - clock())),
        withdrawn ? AbortSignal.any([signal, withdrawn]) : signal,
      );
    }
  }

  function pause(formId: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        wakers.delete(formId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
      wakers.set(formId, done);
    });
  }

  return {
    async open(question, call) {
      const form: PendingForm = {
        formId: newFormId(),
        runId: call.runId,
        ...(call.callId ? { callId: call.callId } : {}),
        question,
        requester: call.origin.requester,
        origin: call.origin,
        expiresAt: clock() + options.timeoutMs,
      };
      await closeLeftBehind(call.runId);
      await forms.renewLease(form.formId, owner, leaseMs);
      await forms.save(form);
      return form;
    },
    async wait(form, signal, withdrawn) {
      // A link is shown, not filled in: the person's own click opens it, and the server hears the rest from its page.
      if (form.question.kind === "url") return settle(form, { action: "accept", by: form.requester, at: clock() });
      try {
        return await waitForClaim(form, signal, withdrawn);
      } catch (error) {
        logger.warn({ err: error, formId: form.formId }, "could not read a form's answer from the store; the form is cancelled");
        return { action: "cancel", reason: "unavailable" };
      }
    },
    notify(formId) {
      wakers.get(formId)?.();
    },
  };
}

export function cancelClaim(reason: Extract<FormAnswer, { action: "cancel" }>["reason"], at: number): FormClaim {
  return { action: "cancel", reason, at };
}
