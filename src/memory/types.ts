// The store seam: everything that must outlive the process goes through this interface.
// keyv lives only in the file that implements it.

export interface KeyValueStore {
  /** Raw stored value, or undefined. Callers validate it (zod) before use: it is untrusted. */
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<boolean>;
  /**
   * Atomic set-if-absent across every process sharing the store (Redis SET NX, SQLite
   * INSERT OR IGNORE). Returns true when this call wrote the value.
   */
  setIfAbsent(key: string, value: unknown, ttlMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface Fact {
  readonly id: string;
  readonly text: string;
  readonly createdAt: number;
  readonly lastUsedAt: number;
  readonly uses: number;
}

/** One remembered exchange: the person's message and the final answer (never tool chatter). */
export interface Turn {
  readonly user: string;
  readonly assistant: string;
  readonly at: number;
}
