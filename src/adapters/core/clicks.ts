// Stop and 👍 / 👎, on any surface. Each asks governance first whether the person may act here
// now (governance/acts.ts): one refused is told privately, and nothing else happens. Stop goes to
// the service, which stops the run on whichever process runs it (the authority says who may); the
// run's own view then shows its summary with "Stopped by <name>.". A vote is stored with the run,
// the conversation, the person and how the run ended; the person is thanked privately, or asked
// for a comment where the surface can.
import type { Person } from "../../contracts/types.js";
import type { ActKind } from "../../governance/acts.js";
import type { CoreContext } from "./core-context.js";
import type { FeedbackClick, StopClick } from "./inbound.js";
import type { Spot } from "./spot.js";
import { BAD_BUTTON, FEEDBACK_FAILED, REFUSED_IN_PUBLIC, RESTARTING_CLICK, STOP_FAILED, stopRefusalText, THANKS } from "./texts.js";

/** True when governance refuses the person at `at` now; they have been told why. */
async function refusedHere<C, R>(ctx: CoreContext<C, R>, at: Spot, act: ActKind): Promise<boolean> {
  const check = await ctx.governance.runPolicy.check({ kind: act, origin: at.origin });
  if (check.kind === "allowed") return false;
  await ctx.tell(at, check.text, REFUSED_IN_PUBLIC);
  return true;
}

/** Never throws. */
export async function stop<C, R>(ctx: CoreContext<C, R>, click: StopClick<C>): Promise<void> {
  const { at } = click;
  if (!ctx.accepting()) return ctx.tell(at, RESTARTING_CLICK);
  if (await refusedHere(ctx, at, "stop")) return;
  try {
    const result = await ctx.service.stop({
      runId: click.runId,
      stoppedBy: at.origin.requester,
      surface: ctx.surface.name,
      ...(at.origin.scope?.workspace ? { workspace: at.origin.scope.workspace } : {}),
      roles: at.origin.scope?.roles ?? [],
      ...(at.origin.scope?.workspaceAdmin ? { workspaceAdmin: true } : {}),
    });
    const refusal = stopRefusalText(result, ctx.surface.format);
    if (refusal) await ctx.tell(at, refusal);
  } catch (error) {
    ctx.logger.error({ err: error, runId: click.runId }, "could not stop a run");
    await ctx.tell(at, STOP_FAILED);
  }
}

/** Never throws. */
export async function feedback<C, R>(ctx: CoreContext<C, R>, click: FeedbackClick<C>): Promise<void> {
  const { at, clicked } = click;
  if (!ctx.accepting()) return ctx.tell(at, RESTARTING_CLICK);
  if (await refusedHere(ctx, at, "feedback")) return;
  // A 👎's form opens first: the platform's trigger for it lasts seconds. The comment finds the vote by run and person.
  const asking = click.rating === "down" ? ctx.surface.askComment?.(click.runId, clicked) : undefined;
  try {
    const link = await ctx.surface.linkTo?.(at, clicked);
    await ctx.service.feedback.record({
      runId: click.runId,
      surface: ctx.surface.name,
      conversationKey: at.origin.conversationKey,
      ...(at.origin.scope?.workspace ? { workspace: at.origin.scope.workspace } : {}),
      person: at.origin.requester,
      rating: click.rating,
      guard: click.guard,
      ...(link ? { link } : {}),
      at: ctx.clock(),
    });
    if (!(await asking)) await ctx.tell(at, THANKS);
  } catch (error) {
    ctx.logger.error({ err: error, runId: click.runId }, "could not record feedback");
    await ctx.tell(at, FEEDBACK_FAILED);
  }
}

/** The comment joins the person's vote. Never throws. */
export async function comment<C, R>(ctx: CoreContext<C, R>, runId: string, person: Person, text: string): Promise<void> {
  if (text.trim() === "") return;
  try {
    if (!(await ctx.service.feedback.comment(runId, person.id, text.trim())))
      ctx.logger.info({ runId }, "a feedback comment had no vote to join");
  } catch (error) {
    ctx.logger.error({ err: error, runId }, "could not save a feedback comment");
  }
}

export function badClick<C, R>(ctx: CoreContext<C, R>, at: Spot): Promise<void> {
  ctx.logger.warn({ conversationKey: at.origin.conversationKey }, "a click on a button that is not one of ours");
  return ctx.tell(at, BAD_BUTTON);
}
