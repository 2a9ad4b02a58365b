// A bounded cache in two generations: when the newer one is full (entries or total key
// length) it becomes the older one and the oldest is dropped. O(1) per entry, where evicting
// one by one from a full Map (keys().next()) costs 3–20 µs each; an entry found in the older
// generation moves back to the newer, so what is still in use survives.

export class TwoGenerationCache<V> {
  private recent = new Map<string, V>();
  private older = new Map<string, V>();
  private recentChars = 0;

  /** Both limits hold per generation, so the cache keeps at most twice each. */
  constructor(
    private readonly maxEntries: number,
    private readonly maxKeyChars: number,
  ) {}

  get(key: string): V | undefined {
    const hit = this.recent.get(key);
    if (hit !== undefined) return hit;
    const old = this.older.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  /** A key longer than a whole generation may hold is not kept. */
  set(key: string, value: V): void {
    if (key.length > this.maxKeyChars) return;
    if (this.recent.size >= this.maxEntries || this.recentChars + key.length > this.maxKeyChars) {
      this.older = this.recent;
      this.recent = new Map();
      this.recentChars = 0;
    }
    // A key set again is counted again: that only brings the next rotation closer.
    this.recentChars += key.length;
    this.recent.set(key, value);
  }
}
