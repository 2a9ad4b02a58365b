// What a surface hands the core about a server's form (core/forms.ts): a click on one of its card's
// buttons, and what the platform's form sent. Types only, so the inbound types can name them.
import type { FormInput } from "../../runs/forms/form-values.js";
import type { Spot } from "./spot.js";

/** A click on one of the bot's buttons; `clicked` is the surface's own view of the message. */
interface Clicked<C> {
  readonly at: Spot;
  readonly clicked: C;
}

/** What a form's button asks for. */
export type FormAction = "open" | "decline" | "cancel";

export type FormClick<C> = Clicked<C> & { readonly formId: string; readonly action: FormAction };

/** What the platform's form sent: the values by field name, as the platform gives them. */
export interface FormSubmission {
  readonly at: Spot;
  readonly formId: string;
  readonly inputs: Readonly<Record<string, FormInput>>;
  /** The platform shows the problems inside its form (Slack's modal); otherwise the person is told them privately. */
  readonly showsProblems?: boolean;
}

/** How a submission went, for a platform that answers inside its form (Slack's modal shows the problems under it). */
export type FormSubmitted =
  | { readonly kind: "done" }
  | { readonly kind: "invalid"; readonly problems: readonly string[]; readonly fields: Readonly<Record<string, string>> };
