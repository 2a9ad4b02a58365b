// An answer held because it quotes a more private place (runs/holds), on any surface: what the
// surface brings to the runs for it (who can see a place, the requester's preview with its three
// choices, the answer sent to them alone, the answer posted where they asked, each written as the
// platform shows an answer and cut to its message size), and the click on a choice, which the
// service carries out for the requester alone.
import type { TaskOrigin } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import type { SurfaceHooks } from "../../runs/api/surface-hooks.js";
import type { CoreContext } from "./core-context.js";
import type { HeldClick } from "./inbound.js";
import { splitText } from "./split-text.js";
import type { ChatSurface } from "./surface.js";
import { RESTARTING_CLICK } from "./texts.js";

const cutNote = (length: number) =>
  `\n\n(The preview stops here: the answer is ${length} characters long. "Send to me privately" sends it whole.)`;

/** `preview` cut to `maxChars`, saying so, so that a long answer still shows its choices in one message. */
export function fitPreview(preview: string, maxChars: number): string {
  if (preview.length <= maxChars) return preview;
  const note = cutNote(preview.length);
  return `${preview.slice(0, Math.max(0, maxChars - note.length - 1))}…${note}`;
}

/** Sends `text` in parts the platform takes; true when every part went. */
async function inParts(text: string, maxChars: number, send: (part: string) => Promise<boolean>): Promise<boolean> {
  for (const part of splitText(text, maxChars)) if (!(await send(part))) return false;
  return true;
}

type HeldHooks = Pick<SurfaceHooks, "audiences" | "offerHeld" | "sendPrivately" | "postHere">;

/** What the surface brings for held answers; nothing on a surface that can't say who sees a place (nothing is held there). */
export function heldHooks<C, R>(surface: ChatSurface<C, R>, logger: Logger): HeldHooks {
  const { audiences, offerHeld } = surface;
  if (!audiences || !offerHeld) return {};
  const { maxChars, answer: shown } = surface.format;
  return {
    audiences,
    offerHeld: (origin, preview, runId) => offerHeld.call(surface, origin, fitPreview(shown(preview), maxChars), runId),
    // A direct message first: it stays where the person finds it again, where an ephemeral one goes with a reload.
    async sendPrivately(origin: TaskOrigin, answer: string) {
      const person = origin.requester;
      const text = shown(answer);
      if (await inParts(text, maxChars, (part) => surface.directMessage(person, part, origin))) return "direct message";
      if (await inParts(text, maxChars, (part) => surface.whisper({ origin }, part))) return "here, to them alone";
      logger.warn({ user: person.id, conversationKey: origin.conversationKey }, "could not send a held answer privately");
      return undefined;
    },
    postHere: (origin, answer) => inParts(shown(answer), maxChars, (part) => surface.post({ origin }, part)),
  };
}

/** A choice on a held answer's preview: the service checks it is the requester's, and the clicker is told what happened. Never throws. */
export async function chooseHeld<C, R>(ctx: CoreContext<C, R>, click: HeldClick<C>): Promise<void> {
  const { at } = click;
  if (!ctx.accepting()) return ctx.tell(at, RESTARTING_CLICK);
  const said = await ctx.service.heldAnswers.choose(click.runId, click.choice, at.origin.requester).catch((error: unknown) => {
    ctx.logger.error({ err: error, runId: click.runId }, "could not carry out a choice on a held answer");
    return "That did not work; try again in a moment.";
  });
  await ctx.tell(at, said);
}
