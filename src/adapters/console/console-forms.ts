// A server's question in the console, asked at the prompt while its run waits: one prompt per
// field (an empty line takes the default, `/cancel` dismisses the form), a field that does not
// read is asked again with why, and the form ends with `send? [y/N]` (anything but yes declines).
// A link is one line with its URL. The answer goes to the core's form flow (core/forms.ts), as a
// click and a form's Send do on Slack and Discord; a form cancelled meanwhile (its expiry, a
// Stop) ends the questions.
import type { FormField, PendingForm } from "../../contracts/types.js";
import { defaultText, readValues, type FormInput } from "../../runs/forms/form-values.js";
import type { FormAction, FormSubmission } from "../core/form-clicks.js";
import type { Spot } from "../core/spot.js";
import { isApproval } from "./console-commands.js";
import type { ConsoleOutput } from "./console-output.js";
import { clean } from "./console-text.js";
import type { LineQueue } from "./line-queue.js";

export const SEND_PROMPT = "send? [y/N] ";
const CANCEL_WORD = "/cancel";

export interface ConsoleFormsDeps {
  readonly out: ConsoleOutput;
  readonly lines: LineQueue;
  /** The console's person, where they answer. */
  readonly here: Spot;
  prompt(text: string): void;
  /** The core's form flows. Never reject. */
  click(formId: string, action: Exclude<FormAction, "open">): Promise<void>;
  submit(submission: FormSubmission): Promise<void>;
}

type Chosen =
  | { readonly action: "accept"; readonly inputs: Readonly<Record<string, FormInput>> }
  | { readonly action: "decline" | "cancel" };

export interface ConsoleForms {
  /** Asks `form` at the prompt, in the background. */
  ask(form: PendingForm): void;
  /** The form ended without this prompt (its expiry, a Stop): its questions end. */
  closed(formId: string): void;
}

function hint(field: FormField): string {
  const parts: string[] = [];
  if (field.description) parts.push(clean(field.description));
  if (field.kind === "choice" || field.kind === "choices")
    parts.push(`choices: ${field.options.map((option, index) => `${index + 1}) ${clean(option.label)}`).join(", ")}`);
  if (field.kind === "choices") parts.push("several, separated by commas");
  if (field.kind === "boolean") parts.push("y/n");
  if (field.kind === "number") {
    const range = field.minimum !== undefined || field.maximum !== undefined ? `, ${field.minimum ?? "…"}–${field.maximum ?? "…"}` : "";
    parts.push(`${field.integer ? "whole number" : "number"}${range}`);
  }
  if (field.kind === "text" && field.format) parts.push(field.format);
  return parts.length > 0 ? ` (${parts.join("; ")})` : "";
}

function promptOf(field: FormField): string {
  const fallback = defaultText(field);
  const tail = fallback !== undefined ? ` [${clean(fallback)}]` : field.required ? " (required)" : "";
  return `  ${clean(field.label)}${hint(field)}${tail}: `;
}

/** A choice may be typed as its number; several choices separated by commas. */
function inputOf(field: FormField, line: string): FormInput {
  const text = line.trim();
  if (field.kind !== "choice" && field.kind !== "choices") return text;
  const { options } = field;
  const byNumber = (part: string) => (/^\d+$/.test(part) ? (options[Number(part) - 1]?.value ?? part) : part);
  if (field.kind === "choice") return byNumber(text);
  return text === ""
    ? text
    : text
        .split(",")
        .map((part) => byNumber(part.trim()))
        .filter(Boolean);
}

export function createConsoleForms(deps: ConsoleFormsDeps): ConsoleForms {
  const { out, lines } = deps;
  const open = new Map<string, AbortController>();

  async function read(text: string, signal: AbortSignal): Promise<string | undefined> {
    deps.prompt(text);
    const line = await lines.nextFresh(signal);
    if (line !== undefined && !out.isTerminal) out.line(line);
    return line;
  }

  /** What the person chose, or undefined when the questions ended first (the form closed, the input ended). */
  async function askFields(fields: readonly FormField[], signal: AbortSignal): Promise<Chosen | undefined> {
    const inputs: Record<string, FormInput> = {};
    for (const field of fields) {
      for (;;) {
        const line = await read(promptOf(field), signal);
        if (line === undefined) return undefined;
        if (line.trim() === CANCEL_WORD) return { action: "cancel" };
        const input = inputOf(field, line);
        const checked = readValues([field], { [field.name]: input });
        if (checked.ok) {
          inputs[field.name] = input;
          break;
        }
        out.line(`  ! ${checked.problems.join("; ")}`);
      }
    }
    const send = await read(SEND_PROMPT, signal);
    if (send === undefined) return undefined;
    if (send.trim() === CANCEL_WORD) return { action: "cancel" };
    return isApproval(send) ? { action: "accept", inputs } : { action: "decline" };
  }

  async function ask(form: PendingForm): Promise<void> {
    const { question } = form;
    if (question.kind === "url") {
      out.line(
        `? The MCP server ${clean(question.server)} asks you to open a page: ${clean(question.message)}\n  Open for ${clean(question.server)}: ${question.url}`,
      );
      return;
    }
    const controller = new AbortController();
    open.set(form.formId, controller);
    out.line(`? The MCP server ${clean(question.server)} asks you to fill in a form: ${clean(question.message)}`);
    out.line(`  (an empty line takes the default; ${CANCEL_WORD} dismisses the form)`);
    let chosen: Chosen | undefined;
    try {
      chosen = await askFields(question.fields, controller.signal);
    } finally {
      open.delete(form.formId);
    }
    if (!chosen) return;
    if (chosen.action === "accept") await deps.submit({ at: deps.here, formId: form.formId, inputs: chosen.inputs });
    else await deps.click(form.formId, chosen.action);
  }

  return {
    ask(form) {
      void ask(form).catch((error: unknown) =>
        out.line(`(The form could not be asked: ${error instanceof Error ? error.message : String(error)}.)`),
      );
    },
    closed(formId) {
      const asking = open.get(formId);
      if (!asking) return;
      asking.abort();
      out.line("\n(The form was closed before it was sent.)");
    },
  };
}
