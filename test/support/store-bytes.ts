// What a SQLite store holds on disk, its write-ahead log included (a running store keeps its
// newest writes there), for a test that looks through every record for something that must not
// be stored as it is (a token, a Connect link).
import { readFile } from "node:fs/promises";

export async function storedBytes(storeUrl: string): Promise<Buffer> {
  const path = storeUrl.replace(/^sqlite:\/\//, "");
  const parts = await Promise.all([path, `${path}-wal`].map((file) => readFile(file).catch(() => Buffer.alloc(0))));
  return Buffer.concat(parts);
}
