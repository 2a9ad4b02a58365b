// Files in the service: what each surface registered for its attachments, the file tools a run
// on it is offered (read_attachment where it brings files, attach_file where it posts them),
// the model wrapper that puts stored images into requests, a task's files prepared as its
// question's parts when the run starts, and the lines history keeps of them.
import type { Logger } from "../../logger.js";
import type { Config } from "../../config.js";
import type { LoopDeps, RunStart } from "../../agent/loop/loop-types.js";
import { observationTokenCap } from "../../agent/loop/loop-deps.js";
import { modelSeesImages } from "../../agent/models/model-vision.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import type { AnswerFileSink, EventSink, Model, Surface, Tool } from "../../contracts/types.js";
import { createAnswerFiles } from "../../files/answer-files.js";
import type { FileDescriptor, FileRef, SurfaceFiles } from "../../files/file-ref.js";
import { fileIdOf } from "../../files/file-intake.js";
import { createFileStore, type FileStore, type StoredAnswerFile } from "../../files/file-store.js";
import { attachedFileLines } from "../../files/history-lines.js";
import { prepareFiles } from "../../files/prepare-files.js";
import { createFileReader } from "../../files/reader/file-reader.js";
import { withStoredImages } from "../../files/stored-images.js";
import type { RunState } from "../../agent/loop/run-state.js";
import type { KeyValueStore } from "../../memory/types.js";
import { attachFileTool } from "../../tools/files/attach-file.js";
import { readAttachmentTool } from "../../tools/files/read-attachment.js";
import type { Task } from "../api/task.js";
import { filePartsAsData } from "../../agent/context/file-blocks.js";

/** Extracted text may take at most this share of the usable context, whatever FILE_TOTAL_TOKENS says. */
const FILES_SHARE_OF_BUDGET = 0.4;
/** Room left in read_attachment's result for its header under the observation cap. */
const READ_HEADER_TOKENS = 100;

export interface RunFiles {
  readonly store: FileStore;
  register(surface: Surface, files: SurfaceFiles): void;
  /** The file tools a run on this surface is offered (before the channel's tool rules). */
  tools(surface: Surface): readonly Tool[];
  /** Where tools put the answer's files, for a surface that posts them. */
  answerFiles(surface: Surface): AnswerFileSink | undefined;
  /** The model with stored images put into its requests (one wrapper per model). */
  model(model: Model): Model;
  /** The task's files as its question's parts, their text as data under the run's `boundary`; undefined when it brought none. */
  attachments(task: Task, runId: string, sink: EventSink, deps: LoopDeps, enabled: boolean, boundary: string): RunStart["attachments"];
  /** The question as history keeps it: the words, and one line per attached file. */
  historyQuestion(state: RunState): string;
  answerFile(conversationKey: string, fileId: string): Promise<StoredAnswerFile | undefined>;
  /** Ends the file readers (after the runs: a read in flight comes back stopped). */
  close(): Promise<void>;
}

export function createRunFiles(config: Config, store: KeyValueStore, counter: TokenCounter, logger: Logger): RunFiles {
  const files = createFileStore(store);
  const reader = createFileReader(config.files, logger);
  const surfaces = new Map<Surface, SurfaceFiles>();
  const models = new WeakMap<Model, Model>();
  const sink = createAnswerFiles(files, config.files.maxBytes);
  const cap = observationTokenCap(config.guards, config.model.name);
  const readTool = readAttachmentTool({
    files,
    counter,
    chunkTokens: Math.max(1, cap - Math.min(READ_HEADER_TOKENS, Math.floor(cap / 2))),
  });
  const attachTool = attachFileTool();

  /** A file a surface described but no surface here can fetch (its process registered none): a note, no download. */
  const unfetchable = (surface: Surface) => ({
    download: async () => ({
      kind: "failed" as const,
      reason: "failed_download" as const,
      detail: `this bot process can't fetch ${surface} files`,
    }),
  });

  return {
    store: files,
    register: (surface, registered) => surfaces.set(surface, registered),
    tools(surface) {
      const registered = surfaces.get(surface);
      if (!registered) return [];
      return registered.uploads ? [readTool, attachTool] : [readTool];
    },
    answerFiles: (surface) => (surfaces.get(surface)?.uploads ? sink : undefined),
    model(model) {
      let wrapped = models.get(model);
      if (!wrapped) {
        wrapped = withStoredImages(model, files);
        models.set(model, wrapped);
      }
      return wrapped;
    },
    attachments(task, runId, events, deps, enabled, boundary) {
      const { origin } = task;
      const registered = surfaces.get(origin.surface);
      const { contextSource } = task;
      const fromRoot = registered?.rootFiles && contextSource ? registered.rootFiles.bind(registered, contextSource, origin) : undefined;
      if ((task.files ?? []).length === 0 && !fromRoot) return undefined;
      const budget = deps.limits.contextWindow - deps.limits.reservedOutputTokens;
      return async (signal) => {
        const listed = [...(await rootFilesOf(fromRoot, signal, task.files ?? [], files, origin.conversationKey)), ...(task.files ?? [])];
        const described = registered?.describe
          ? await Promise.all(listed.map((file) => registered.describe!(file, origin, signal)))
          : listed;
        if (described.length === 0) return [];
        const refs: FileRef[] = described.map((file) =>
          registered ? registered.refFor(file, origin) : { ...file, ...unfetchable(origin.surface) },
        );
        const prepared = await prepareFiles(refs, {
          conversationKey: origin.conversationKey,
          limits: config.files,
          signal,
          vision: modelSeesImages(deps.model.name, config.model.vision),
          counter: deps.counter,
          store: files,
          reader,
          enabled,
          tokenBudget: Math.floor(budget * FILES_SHARE_OF_BUDGET),
        });
        try {
          events({ type: "files", runId, files: prepared.outcomes });
        } catch {
          // A sink must not throw; one that does changes nothing about the run.
        }
        return filePartsAsData(prepared.parts, boundary);
      };
    },
    historyQuestion(state) {
      const lines = attachedFileLines(state.messages);
      return lines.length === 0 ? state.question : [state.question, ...lines].filter((line) => line !== "").join("\n");
    },
    answerFile: (conversationKey, fileId) => files.loadAnswerFile(conversationKey, fileId),
    close: () => reader.close(),
  };
}

/**
 * The thread root's files a reply brings: not those the message itself has, nor those an earlier turn of the
 * conversation read already (history names them, read_attachment reads them).
 */
async function rootFilesOf(
  fromRoot: ((signal: AbortSignal) => Promise<readonly FileDescriptor[]>) | undefined,
  signal: AbortSignal,
  own: readonly FileDescriptor[],
  files: FileStore,
  conversationKey: string,
): Promise<readonly FileDescriptor[]> {
  if (!fromRoot) return [];
  const root = await fromRoot(signal).catch(() => []);
  if (root.length === 0) return [];
  const known = new Set([...own.map((file) => file.id), ...(await files.list(conversationKey).catch(() => []))]);
  return root.filter((file) => !known.has(file.id) && !known.has(fileIdOf(file.id)));
}
