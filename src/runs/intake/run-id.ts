// Run ids: 6 random bytes as 8 base64url characters (short enough for button ids). Drawn from a
// pool filled 4 KB at a time: a system call per id cost more than the rest of a run's start.
import { randomBytes } from "node:crypto";

const ID_BYTES = 6;
const POOL_BYTES = 4096;

let pool = randomBytes(POOL_BYTES);
let offset = 0;

export function newRunId(): string {
  if (offset + ID_BYTES > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const id = pool.toString("base64url", offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return id;
}
