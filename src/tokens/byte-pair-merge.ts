// Byte-pair encoding of one piece in O(n log n): a heap of candidate merges over a linked list
// of parts, instead of js-tiktoken's rescan of every pair after each merge (quadratic or worse
// in the piece's length: 3,000 emoji took ~10 s there). Same result: the lowest rank merges
// first, the leftmost among equal ranks, as in tiktoken.

/** Which rank the bytes of two adjacent tokens merge into, or -1 when they do not. */
export type PairRank = (left: number, right: number) => number;

const NOT_A_TOKEN = -2;

/** Min-heap of (rank, position), compared in that order; its arrays are reused from piece to piece. */
class MergeHeap {
  private ranks = new Int32Array(0);
  private positions = new Int32Array(0);
  size = 0;

  reset(capacity: number): void {
    if (this.ranks.length < capacity) {
      this.ranks = new Int32Array(capacity);
      this.positions = new Int32Array(capacity);
    }
    this.size = 0;
  }

  private less(a: number, b: number): boolean {
    const ra = this.ranks[a]!;
    const rb = this.ranks[b]!;
    return ra < rb || (ra === rb && this.positions[a]! < this.positions[b]!);
  }

  private swap(a: number, b: number): void {
    const rank = this.ranks[a]!;
    const position = this.positions[a]!;
    this.ranks[a] = this.ranks[b]!;
    this.positions[a] = this.positions[b]!;
    this.ranks[b] = rank;
    this.positions[b] = position;
  }

  push(rank: number, position: number): void {
    let index = this.size++;
    this.ranks[index] = rank;
    this.positions[index] = position;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.less(index, parent)) break;
      this.swap(index, parent);
      index = parent;
    }
  }

  /** Removes the top; its rank and position are read first with topRank / topPosition. */
  pop(): void {
    this.size--;
    if (this.size === 0) return;
    this.swap(0, this.size);
    let index = 0;
    for (;;) {
      let child = 2 * index + 1;
      if (child >= this.size) break;
      if (child + 1 < this.size && this.less(child + 1, child)) child++;
      if (!this.less(child, index)) break;
      this.swap(child, index);
      index = child;
    }
  }

  get topRank(): number {
    return this.ranks[0]!;
  }

  get topPosition(): number {
    return this.positions[0]!;
  }
}

/** Working arrays, grown to the longest piece seen: the merge runs synchronously, one piece at a time. */
let tokens = new Int32Array(0);
let next = new Int32Array(0);
let previous = new Int32Array(0);
/** The rank that part i and its successor merge into, or -1. */
let pairs = new Int32Array(0);
const heap = new MergeHeap();

function reserve(length: number): void {
  if (tokens.length >= length) return;
  tokens = new Int32Array(length);
  next = new Int32Array(length);
  previous = new Int32Array(length);
  pairs = new Int32Array(length);
}

/** Returns how many tokens `bytes` (one regex piece, or a chunk of one) encode to, and appends them to `out` when given. */
export function bytePairEncode(bytes: Uint8Array, byteRanks: Int32Array, pairRank: PairRank, out?: number[]): number {
  const length = bytes.length;
  if (length === 0) return 0;
  reserve(length);
  heap.reset(3 * length);
  for (let index = 0; index < length; index++) {
    tokens[index] = byteRanks[bytes[index]!]!;
    next[index] = index + 1;
    previous[index] = index - 1;
  }
  next[length - 1] = -1;
  pairs[length - 1] = -1;
  for (let index = 0; index < length - 1; index++) {
    const rank = pairRank(tokens[index]!, tokens[index + 1]!);
    pairs[index] = rank;
    if (rank >= 0) heap.push(rank, index);
  }
  while (heap.size > 0) {
    const rank = heap.topRank;
    const left = heap.topPosition;
    heap.pop();
    // Entries go stale when a neighbour merged first; the arrays hold the truth.
    if (tokens[left] === NOT_A_TOKEN || pairs[left] !== rank) continue;
    const right = next[left]!;
    const after = next[right]!;
    tokens[left] = rank;
    tokens[right] = NOT_A_TOKEN;
    next[left] = after;
    if (after >= 0) {
      previous[after] = left;
      const merged = pairRank(rank, tokens[after]!);
      pairs[left] = merged;
      if (merged >= 0) heap.push(merged, left);
    } else {
      pairs[left] = -1;
    }
    const before = previous[left]!;
    if (before >= 0) {
      const merged = pairRank(tokens[before]!, rank);
      pairs[before] = merged;
      if (merged >= 0) heap.push(merged, before);
    }
  }
  let count = 0;
  for (let index = 0; index >= 0; index = next[index]!) {
    count++;
    out?.push(tokens[index]!);
  }
  return count;
}
