// A server's question to a run's requester, on any surface: the private card with its buttons
// (Answer <server>, Decline, Dismiss; a link for a page), the click that opens the platform's form,
// and the form's answer. Only the requester may open or answer it (anyone else is told privately
// and nothing changes); a form that is closed (answered, expired, ended by a restart) says so.
import type { PendingForm } from "../../contracts/types.js";
import type { FormClosed, FormReplyResult } from "../../runs/forms/form-answers.js";
import type { CoreContext } from "./core-context.js";
import type { FormClick, FormSubmission, FormSubmitted } from "./form-clicks.js";
import type { TextFormat } from "./surface.js";
import { RESTARTING_CLICK } from "./texts.js";

const NOT_OPENED = "The form could not be opened here (it may not fit this platform's forms); press the button again, or Decline.";
export const FORM_FAILED = "Sorry, that form could not be handled just now. Try again in a moment.";

export function answerLabel(form: PendingForm): string {
  return `Answer ${form.question.server}`;
}

/** The card's text: which server asks, and what. */
export function formCardText(form: PendingForm, format: TextFormat): string {
  const { question } = form;
  const server = format.code(question.server);
  if (question.kind === "url") return `The MCP server ${server} asks you to open a page: ${format.plain(question.message)}`;
  return `The MCP server ${server} asks you to fill in a form: ${format.plain(question.message)}`;
}

export function closedText(closed: FormClosed, format: TextFormat): string {
  switch (closed.kind) {
    case "unknown":
      return "That form is not known here (it ended long ago, or the button is not one of ours).";
    case "answered": {
      const word = closed.action === "accept" ? "sent" : closed.action === "decline" ? "declined" : "dismissed";
      return `That form was ${word} already${closed.by ? ` by ${format.person(closed.by.id)}` : ""}.`;
    }
    case "expired":
      return "That form was not answered in time; the server was told it was cancelled, and the run went on.";
    case "stopped":
      return "That form was cancelled: its run was stopped.";
    case "withdrawn":
      return "The server withdrew that form (it stopped waiting for it), so nothing was sent.";
    case "restarted":
      return "That form ended when the bot restarted: the server's question does not survive a restart, so nothing was sent. The run goes on from its last saved step; if the server asks again, a new form comes.";
  }
}

function resultText(result: FormReplyResult, format: TextFormat): string | undefined {
  switch (result.kind) {
    case "answered":
      return result.action === "accept"
        ? `Sent to ${format.code(result.form.question.server)}.`
        : result.action === "decline"
          ? `You declined ${format.code(result.form.question.server)}'s form.`
          : `You dismissed ${format.code(result.form.question.server)}'s form.`;
    case "not_requester":
      return `Only ${format.person(result.form.requester.id)} can answer this form.`;
    case "closed":
      return closedText(result.closed, format);
    case "invalid":
      return `Not sent: ${result.problems.join("; ")}.`;
    case "open":
      return undefined;
  }
}

/** Open, Decline or Dismiss on a form's card. Never throws. */
export async function formClick<C, R>(ctx: CoreContext<C, R>, click: FormClick<C>): Promise<void> {
  const { at } = click;
  if (!ctx.accepting()) return ctx.tell(at, RESTARTING_CLICK);
  const person = at.origin.requester;
  try {
    if (click.action === "open") {
      // The platform's trigger for a form lasts seconds: the lookup is one read, then the form opens.
      const found = await ctx.service.forms.lookup(click.formId, person);
      if (found.kind === "open" && (await ctx.surface.openForm?.(click.clicked, found.form))) return;
      const text = found.kind === "open" ? NOT_OPENED : (resultText(found, ctx.surface.format) ?? FORM_FAILED);
      if (await ctx.surface.answerOpenClick?.(click.clicked, text)) return;
      return ctx.tell(at, text);
    }
    const result = await ctx.service.forms.reply({ formId: click.formId, by: person, action: click.action });
    const text = resultText(result, ctx.surface.format);
    if (text) await ctx.tell(at, text);
  } catch (error) {
    ctx.logger.error({ err: error, formId: click.formId }, "could not handle a form's button");
    await ctx.tell(at, FORM_FAILED);
  }
}

/** The platform's form was sent. Never throws; `invalid` leaves the form open for the person to fix. */
export async function formSubmit<C, R>(ctx: CoreContext<C, R>, submission: FormSubmission): Promise<FormSubmitted> {
  const { at } = submission;
  if (!ctx.accepting()) {
    await ctx.tell(at, RESTARTING_CLICK);
    return { kind: "done" };
  }
  try {
    const result = await ctx.service.forms.reply({
      formId: submission.formId,
      by: at.origin.requester,
      action: "accept",
      inputs: submission.inputs,
    });
    if (result.kind === "invalid") {
      if (!submission.showsProblems) await ctx.tell(at, `${resultText(result, ctx.surface.format)} Press the button to try again.`);
      return { kind: "invalid", problems: result.problems, fields: result.fields };
    }
    const text = resultText(result, ctx.surface.format);
    if (text) await ctx.tell(at, text);
    return { kind: "done" };
  } catch (error) {
    ctx.logger.error({ err: error, formId: submission.formId }, "could not take a form's answer");
    await ctx.tell(at, FORM_FAILED);
    return { kind: "done" };
  }
}
