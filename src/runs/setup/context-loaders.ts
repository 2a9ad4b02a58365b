// Thread context a surface reads when a run starts (not when its message arrives), from the
// place the adapter recorded in the task's contextSource: nothing slow stands between the
// platform's ack and the intake record, and a restarted process can still read it.
import { contentText } from "../../agent/content.js";
import type { Logger } from "../../logger.js";
import type { ContextLoader } from "../api/surface-hooks.js";
import type { Task } from "../api/task.js";
import type { SourcedText, TextSource } from "../../contracts/provenance.js";
import type { ChatMessage, Surface } from "../../contracts/types.js";

export interface ContextLoaders {
  register(surface: Surface, loader: ContextLoader): void;
  /** The task's own thread context, or the one its surface reads now, with sources; never rejects (no context: []). */
  load(task: Task): Promise<readonly SourcedText[]>;
}

/** Who wrote a message of an older intake record's thread context is not known: it is another person's, read as data. */
const RECORDED_THREAD: TextSource = { kind: "person", author: { id: "unknown" }, channel: "this thread" };

/** The recorded thread's lines; its system messages are the bot's own notes (botNotes), not lines of the thread. */
function recordedLines(messages: readonly ChatMessage[]): SourcedText[] {
  return messages
    .filter((message) => message.role !== "system")
    .map((message) => ({ source: RECORDED_THREAD, text: contentText(message.content) }));
}

/** What the bot itself noted at intake (where the person is viewing as they ask a DM): its own words, not data. */
export function botNotes(task: Task): ChatMessage[] {
  return (task.threadContext ?? []).filter((message) => message.role === "system");
}

export function createContextLoaders(logger: Logger): ContextLoaders {
  const loaders = new Map<Surface, ContextLoader>();
  return {
    register: (surface, loader) => void loaders.set(surface, loader),
    async load(task) {
      if (task.threadContext) return recordedLines(task.threadContext);
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
