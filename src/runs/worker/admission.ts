// Whether a message may run, asked by the worker before anything is shown: access and limits as
// the settings file has them now (governance/run-policy.ts). A refusal is the answer the person
// gets instead of a run.
import type { RunOutcome } from "../../contracts/types.js";
import type { RunPolicy } from "../../governance/run-policy.js";
import type { Task } from "../api/task.js";
import { newRunId } from "../intake/run-id.js";

export interface Admission {
  /** A refusal to answer instead of running, or undefined to run. */
  refusal(task: Task): Promise<Extract<RunOutcome, { status: "answered" }> | undefined>;
}

/** Without a run policy everyone may ask everywhere; a record of an older version whose surface admitted it is not counted again. */
export function createAdmission(runPolicy: RunPolicy | undefined): Admission {
  return {
    async refusal(task) {
      if (!runPolicy || task.admitted) return undefined;
      const admission = await runPolicy.admit(task.origin);
      if (admission.kind !== "refused") return undefined;
      return { status: "answered", runId: newRunId(), answer: admission.text, steps: [], usage: { promptTokens: 0, completionTokens: 0 } };
    },
  };
}
