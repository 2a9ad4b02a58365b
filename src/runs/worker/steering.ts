// Steering: with the `steer` policy, what the run's own requester sends in its conversation while
// it works joins it before its next model call ("The person added: …"), answered within the same
// run. What the loop is given here is recorded already (an intake record each, listed in the
// conversation's inbox): the loop saves a checkpoint holding them before they are marked taken,
// so across a crash each is either in the run's checkpoint or still waiting to run on its own.
// An edit of the run's question joins it under `queue` too. Someone else's message, one with
// files, and one answered through a reply of its own are left to run after, in order. A store that
// blinks (a Redis restart) is waited for: a message it hid would be answered on its own, after.
import type { AddedMessages } from "../../agent/loop/loop-types.js";
import type { AddedMessage } from "../../contracts/types.js";
import type { ConcurrentMessages } from "../../governance/channel-settings.js";
import type { IntakeRecord } from "../intake/intake-store.js";
import { sentBefore } from "../intake/sent-order.js";
import { STORE_RETRY, withRetries } from "../retry.js";
import type { WorkContext } from "./work-context.js";

/** What steering reads and writes: the conversation's waiting messages and their records. */
export type SteeringContext = Pick<WorkContext, "intake" | "inbox"> & {
  readonly deps: Pick<WorkContext["deps"], "conversations" | "logger">;
};

/** The messages `record`'s run may be given while it works. */
export function steeringOf(work: SteeringContext, record: IntakeRecord): AddedMessages {
  const { origin } = record.task;
  const { logger } = work.deps;

  /** Its question edited: "queue" steers it too (a correction answered after the answer would come too late); "interrupt" stops the run instead. */
  const editsThisRun = (other: IntakeRecord): boolean =>
    other.task.edits !== undefined && (other.task.edits === record.id || (record.merged ?? []).includes(other.task.edits));

  /** Pure: whether a waiting message joins the run, under the conversation's policy now. */
  const joins = (other: IntakeRecord, taken: readonly string[], policy: ConcurrentMessages): boolean =>
    (policy === "steer" || (policy === "queue" && editsThisRun(other))) &&
    other.state === "received" &&
    other.id !== record.id &&
    !taken.includes(other.id) &&
    other.task.origin.requester.id === origin.requester.id &&
    sentBefore(record, other) < 0 &&
    !other.task.reply &&
    (other.task.files ?? []).length === 0;

  return {
    async pending(taken) {
      try {
        const policy = work.deps.conversations.policyFor(origin);
        if (policy === "interrupt") return [];
        const waiting = await withRetries(async () => work.intake.loadMany(await work.inbox.waiting(origin.conversationKey)), STORE_RETRY);
        return waiting
          .filter((other) => joins(other, taken, policy))
          .sort(sentBefore)
          .map((other): AddedMessage => ({ id: other.id, kind: other.task.edits ? "edited" : "added", text: other.task.text }));
      } catch (error) {
        logger.warn({ err: error, runId: record.id }, "could not look for messages added to a run; they are answered after it");
        return [];
      }
    },
    async taken(ids) {
      const mark = async () => {
        for (const other of await work.intake.loadMany(ids))
          if (other.state !== "done") await work.intake.update({ ...other, state: "done", result: "steered", into: record.id });
        await work.inbox.remove(origin.conversationKey, ids);
      };
      await withRetries(mark, STORE_RETRY).catch((error: unknown) =>
        logger.error(
          { err: error, runId: record.id, ids },
          "could not mark messages as added to a run; they may be answered again on their own",
        ),
      );
    },
  };
}
