// What one run is set up with, as the workers ask for it: its loop (model, tools, guards for its
// channel), its sink with the audit, the context a new run starts from (system prompt, memory,
// thread), and the files its question brings. Built by the service from the setups, the
// conversation memory and the files; the worker sees this one object.
import type { LoopDeps, RunStart } from "../../agent/loop/loop-types.js";
import type { EventSink, TaskOrigin } from "../../contracts/types.js";
import type { RunSettings } from "../../governance/channel-settings.js";
import type { Task } from "../api/task.js";
import type { SinkFor } from "./audited-sink.js";
import type { ConversationMemory, StartContext } from "./conversation-memory.js";
import type { LoopSetups } from "./loop-setups.js";
import type { RunFiles } from "./run-files.js";

export interface RunSetup {
  /** The loop setup for a run from this origin (its write tools already go through the ledger). */
  loopDeps(origin: TaskOrigin): LoopDeps;
  /** A run's sink, with the audit where the settings keep one; `waitingTool` names the write a resumed run waited on. */
  sink(origin: TaskOrigin, sink: EventSink, waitingTool?: string): EventSink;
  /** System prompt, memory and thread context for a new run, what is not the requester's own as data under `boundary`. */
  context(task: Task, boundary: string): Promise<StartContext>;
  /** The task's files as the question's parts, prepared within the run's time; undefined when it brought none. */
  attachments(task: Task, runId: string, sink: EventSink, boundary: string): RunStart["attachments"];
}

export function createRunSetup(parts: {
  readonly setups: LoopSetups;
  readonly sinkFor: SinkFor;
  readonly memory: Pick<ConversationMemory, "contextOf">;
  readonly files: RunFiles;
  readonly settingsOf: (origin: TaskOrigin) => RunSettings;
}): RunSetup {
  const { setups, sinkFor, memory, files, settingsOf } = parts;
  return {
    loopDeps: (origin) => setups.for(origin),
    sink: sinkFor,
    context: (task, boundary) => memory.contextOf(task, boundary),
    attachments: (task, runId, sink, boundary) =>
      files.attachments(task, runId, sink, setups.for(task.origin), settingsOf(task.origin).files, boundary),
  };
}
