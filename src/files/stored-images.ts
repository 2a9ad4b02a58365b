// Image parts name their bytes in the file store (a checkpoint holds the reference, not a
// copy); this model wrapper puts the bytes in just before each call. A few recent images are
// kept in memory, since every step of a run sends them again. An image the store no longer
// has goes as a note saying so.
import type { ChatMessage, ContentPart, Model, ModelRequest } from "../contracts/types.js";
import type { FileStore, StoredImage } from "./file-store.js";
import { promptName } from "./file-names.js";

const CACHED_IMAGES = 8;

type Stored = Extract<Extract<ContentPart, { type: "image" }>["source"], { stored: unknown }>["stored"];

function hasStoredImage(message: ChatMessage): boolean {
  return (
    message.role === "user" &&
    typeof message.content !== "string" &&
    message.content.some((part) => part.type === "image" && "stored" in part.source)
  );
}

export function withStoredImages(model: Model, files: FileStore): Model {
  const cache = new Map<string, StoredImage>();
  /** How far each message list was scanned, and whether it holds a stored image: a step scans only what it added. */
  const scanned = new WeakMap<readonly ChatMessage[], { length: number; found: boolean }>();

  const needsImages = (messages: readonly ChatMessage[]): boolean => {
    const seen = scanned.get(messages) ?? { length: 0, found: false };
    if (!seen.found) for (let index = seen.length; index < messages.length; index++) seen.found ||= hasStoredImage(messages[index]!);
    seen.length = messages.length;
    scanned.set(messages, seen);
    return seen.found;
  };

  const image = async (stored: Stored): Promise<StoredImage | undefined> => {
    const key = `${stored.conversationKey}\n${stored.fileId}`;
    const hit = cache.get(key);
    if (hit) return hit;
    const loaded = await files.loadImage(stored.conversationKey, stored.fileId).catch(() => undefined);
    if (loaded) {
      if (cache.size >= CACHED_IMAGES) cache.delete(cache.keys().next().value!);
      cache.set(key, loaded);
    }
    return loaded;
  };

  const resolvePart = async (part: ContentPart): Promise<ContentPart> => {
    if (part.type !== "image" || !("stored" in part.source)) return part;
    const loaded = await image(part.source.stored);
    return loaded
      ? { ...part, mime: loaded.mime, source: { data: loaded.data } }
      : {
          type: "file",
          file: part.file,
          text: `[image "${promptName(part.file.name)}" is no longer kept by the bot, so it can't be shown]`,
          status: "unreadable",
        };
  };

  const resolve = async (message: ChatMessage): Promise<ChatMessage> =>
    hasStoredImage(message) && message.role === "user" && typeof message.content !== "string"
      ? { role: "user", content: await Promise.all(message.content.map(resolvePart)) }
      : message;

  return {
    name: model.name,
    async complete(request: ModelRequest, signal: AbortSignal) {
      if (!needsImages(request.messages)) return model.complete(request, signal);
      return model.complete({ ...request, messages: await Promise.all(request.messages.map(resolve)) }, signal);
    },
  };
}
