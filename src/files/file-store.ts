// What was extracted from each attached file, stored once per conversation and file id: a run's
// checkpoints refer to it (an image part names its stored bytes), a resumed run reads it
// instead of downloading again, read_attachment reads on in it, and `forget` removes it. The
// answer's files wait here until the surface posts them. Records are checked with zod on load.
import { z } from "zod";
import type { ImageMime } from "../contracts/types.js";
import type { KeyValueStore } from "../memory/types.js";

/** Files are kept for later turns of their conversation this long (a month), then the store drops them. */
export const FILE_TTL_MS = 30 * 24 * 60 * 60_000;

const Info = {
  version: z.literal(1),
  id: z.string().min(1).max(200),
  name: z.string().max(1_000),
  mime: z.string().max(200),
  size: z.number().int().nonnegative(),
  storedAt: z.number(),
};

const StoredFileSchema = z.discriminatedUnion("kind", [
  z.object({ ...Info, kind: z.literal("text"), text: z.string(), replaced: z.number().int().nonnegative() }),
  z.object({ ...Info, kind: z.literal("pdf"), pageCount: z.number().int().nonnegative(), pages: z.array(z.string()) }),
  z.object({
    ...Info,
    kind: z.literal("image"),
    imageMime: z.enum(["image/png", "image/jpeg", "image/gif", "image/webp"]),
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    originalWidth: z.number().int().positive(),
    originalHeight: z.number().int().positive(),
  }),
  /** Known not to be readable (encrypted PDF, a bomb, a binary file): not downloaded again to learn that. */
  z.object({ ...Info, kind: z.literal("unreadable"), reason: z.enum(["unreadable", "unsupported_type"]), detail: z.string() }),
]);
export type StoredFile = z.infer<typeof StoredFileSchema>;

const ImageDataSchema = z.object({ version: z.literal(1), mime: z.string(), data: z.string() });
const AnswerDataSchema = z.object({ version: z.literal(1), name: z.string(), mime: z.string(), data: z.string() });

export interface StoredImage {
  readonly mime: ImageMime;
  /** Base64. */
  readonly data: string;
}

export interface StoredAnswerFile {
  readonly name: string;
  readonly mime: string;
  readonly data: Buffer;
}

export interface FileStore {
  /** Undefined when missing, expired or not a valid record. */
  load(conversationKey: string, fileId: string): Promise<StoredFile | undefined>;
  /** The resized image's bytes go beside the record (`image`), so reading the record stays small. */
  save(conversationKey: string, file: StoredFile, image?: StoredImage): Promise<void>;
  loadImage(conversationKey: string, fileId: string): Promise<StoredImage | undefined>;
  saveAnswerFile(conversationKey: string, fileId: string, file: StoredAnswerFile): Promise<void>;
  loadAnswerFile(conversationKey: string, fileId: string): Promise<StoredAnswerFile | undefined>;
  /** Ids of the attached files kept for this conversation. */
  list(conversationKey: string): Promise<string[]>;
  /** Notes that the file is being read, until `endReading`: a process that dies reading it leaves the note behind. */
  startReading(conversationKey: string, fileId: string): Promise<void>;
  endReading(conversationKey: string, fileId: string): Promise<void>;
  /** True when a read of the file began and neither ended nor stored a record (its process died reading it). */
  wasReading(conversationKey: string, fileId: string): Promise<boolean>;
  /** Removes every file of the conversation (attached and answer files); returns how many. */
  forget(conversationKey: string): Promise<number>;
}

const recordKey = (conversationKey: string, fileId: string) => `file:${conversationKey}:${fileId}`;
const imageKey = (conversationKey: string, fileId: string) => `file-image:${conversationKey}:${fileId}`;
const answerKey = (conversationKey: string, fileId: string) => `file-out:${conversationKey}:${fileId}`;
const indexKey = (conversationKey: string) => `files:${conversationKey}`;
const readingKey = (conversationKey: string, fileId: string) => `file-reading:${conversationKey}:${fileId}`;
/** A read note outlives any read (FILE_READ_TIMEOUT_MS is at most 10 minutes) and the restarts after it. */
const READING_TTL_MS = 24 * 60 * 60_000;
const IN = "in:";
const OUT = "out:";

export function createFileStore(store: KeyValueStore, ttlMs = FILE_TTL_MS): FileStore {
  const parsed = async <T>(key: string, schema: z.ZodType<T>): Promise<T | undefined> => {
    const result = schema.safeParse(await store.get(key));
    return result.success ? result.data : undefined;
  };

  return {
    async load(conversationKey, fileId) {
      const file = await parsed(recordKey(conversationKey, fileId), StoredFileSchema);
      return file?.id === fileId ? file : undefined;
    },

    async save(conversationKey, file, image) {
      // Listed first: a file written but not listed would outlive `forget`.
      await store.addToSet(indexKey(conversationKey), IN + file.id, ttlMs);
      if (image) await store.set(imageKey(conversationKey, file.id), { version: 1, ...image }, ttlMs);
      await store.set(recordKey(conversationKey, file.id), file, ttlMs);
    },

    async loadImage(conversationKey, fileId) {
      const image = await parsed(imageKey(conversationKey, fileId), ImageDataSchema);
      return image ? { mime: image.mime as ImageMime, data: image.data } : undefined;
    },

    async saveAnswerFile(conversationKey, fileId, file) {
      await store.addToSet(indexKey(conversationKey), OUT + fileId, ttlMs);
      await store.set(
        answerKey(conversationKey, fileId),
        { version: 1, name: file.name, mime: file.mime, data: file.data.toString("base64") },
        ttlMs,
      );
    },

    async loadAnswerFile(conversationKey, fileId) {
      const file = await parsed(answerKey(conversationKey, fileId), AnswerDataSchema);
      return file ? { name: file.name, mime: file.mime, data: Buffer.from(file.data, "base64") } : undefined;
    },

    async startReading(conversationKey, fileId) {
      await store.set(readingKey(conversationKey, fileId), { version: 1, since: Date.now() }, READING_TTL_MS);
    },

    async endReading(conversationKey, fileId) {
      await store.delete(readingKey(conversationKey, fileId));
    },

    async wasReading(conversationKey, fileId) {
      return (await store.get(readingKey(conversationKey, fileId))) !== undefined;
    },

    async list(conversationKey) {
      const members = await store.setMembers(indexKey(conversationKey));
      return members.filter((member) => member.startsWith(IN)).map((member) => member.slice(IN.length));
    },

    async forget(conversationKey) {
      const index = indexKey(conversationKey);
      const members = await store.setMembers(index);
      for (const member of members) {
        if (member.startsWith(IN)) {
          const fileId = member.slice(IN.length);
          await store.delete(recordKey(conversationKey, fileId));
          await store.delete(imageKey(conversationKey, fileId));
        } else if (member.startsWith(OUT)) {
          await store.delete(answerKey(conversationKey, member.slice(OUT.length)));
        }
        await store.removeFromSet(index, member);
      }
      return members.length;
    },
  };
}
