// Thread context a surface reads when a run starts (not when its message arrives), from the
// place the adapter recorded in the task's contextSource: nothing slow stands between the
// platform's ack and the intake record, and a restarted process can still read it.
import type { Logger } from "../../logger.js";
import type { ContextLoader } from "../api/surface-hooks.js";
import type { Task } from "../api/task.js";
import type { ChatMessage, Surface } from "../../contracts/types.js";

export interface ContextLoaders {
  register(surface: Surface, loader: ContextLoader): void;
  /** The task's own thread context, or the one its surface reads now; never rejects (no context: []). */
  load(task: Task): Promise<readonly ChatMessage[]>;
}

export function createContextLoaders(logger: Logger): ContextLoaders {
  const loaders = new Map<Surface, ContextLoader>();
  return {
    register: (surface, loader) => void loaders.set(surface, loader),
    async load(task) {
      if (task.threadContext) return task.threadContext;
      const loader = loaders.get(task.origin.surface);
      if (!loader || !task.contextSource) return [];
      return loader(task.contextSource, task.origin).catch((error: unknown) => {
        logger.warn(
          { err: error, conversationKey: task.origin.conversationKey },
          "could not read the thread for context; answering without it",
        );
        return [];
      });
    },
  };
}
