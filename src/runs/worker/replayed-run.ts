// A message taken up again while its record says it is running: the process that ran it died, or
// its store failed as it finished. What its run showed already is not shown again (answer-marks.ts):
// an answer shown means the message is done; a run that paused for approval is not run again (that
// would ask a second time, on a second card): its card is shown if it was not, and the message is done.
// Anything else goes on from the run's checkpoint.
import { SurfaceUnavailableError } from "../../errors.js";
import type { RunOutcome } from "../../contracts/types.js";
import type { IntakeRecord } from "../intake/intake-store.js";
import { withConnectUrl } from "./connect-link.js";
import type { WorkContext } from "./work-context.js";

/** True when the replay is over and nothing is to run; false: the run goes on. Rejects when the store fails. */
export async function settleReplay(work: WorkContext, record: IntakeRecord): Promise<boolean> {
  const { deps, intake, checkpoints } = work;
  const { logger, shows } = deps;
  if (await work.answeredBefore(record.id)) {
    logger.info({ intakeId: record.id }, "a message's answer was shown already; it is marked done, not answered again");
    await intake.update({ ...record, state: "done", result: "answered" });
    await checkpoints.remove(record.id);
    return true;
  }
  // Posted by a process that died before the mark: the platform holds it, and it is not posted again.
  const { origin } = record.task;
  if (shows.canShow(record.id, origin.surface)) {
    const found = await shows.presenterFor(record.id, origin, record.task.text, record.task.reply).findAnswer?.(record.id);
    if (found) {
      logger.info(
        { intakeId: record.id },
        "a message's answer is in its conversation already (its mark was not written); it is marked done",
      );
      await work.markAnswered(record.id, found);
      await intake.update({ ...record, state: "done", result: "answered" });
      await checkpoints.remove(record.id);
      return true;
    }
  }
  const paused = await deps.approvals.load(record.id);
  if (paused.kind !== "found") return false;
  const { state, pending } = paused.run;
  if (await work.cardShownBefore(record.id, pending.callId))
    logger.info({ intakeId: record.id }, "a message's run waits for an approval already asked for; it is marked done, not run again");
  else {
    const { surface } = record.task.origin;
    if (!shows.canShow(record.id, surface)) throw new SurfaceUnavailableError(surface, record.id);
    logger.info({ intakeId: record.id }, "a message's run waits for an approval whose card was not shown; it is shown now");
    // A record keeps no Connect link: the card shown now gets a new one.
    const shown = await withConnectUrl(pending, deps.connectLink, logger);
    const outcome: RunOutcome = { status: "paused", runId: record.id, pending: shown, steps: state.steps, usage: state.usage };
    const posted = await shows.presenterFor(record.id, record.task.origin, record.task.text, record.task.reply).finish(outcome);
    // Never done without a post: the record stays running, and the next try shows the card.
    if (posted && "unposted" in posted) throw new SurfaceUnavailableError(surface, record.id);
    await work.markShown(outcome, posted);
  }
  await intake.update({ ...record, state: "done", result: "paused" });
  await checkpoints.remove(record.id);
  return true;
}
