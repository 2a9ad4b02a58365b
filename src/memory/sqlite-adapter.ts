// keyv's SQLite adapter, with each statement prepared once and reused. @keyv/sqlite runs every
// query through `Database#all`, which prepares and finalizes a new statement each time (and
// ignores a `connect` option): the finalize waits on the connection's lock on the main thread
// while a worker runs another query, so hundreds of conversations at once blocked the event
// loop for ~0.1–0.3 ms per store operation. Same table layout as @keyv/sqlite, so files move
// freely between the two.
import { EventEmitter } from "node:events";
import type { KeyvStoreAdapter, StoredData } from "keyv";
import sqlite3 from "sqlite3";

/** Our statements and keyv's are a fixed set; text beyond this many is run unprepared rather than kept. */
const MAX_PREPARED = 64;

function opened(path: string, busyTimeoutMs: number, readOnly: boolean): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    // The library's default mode, or the same for reading only.
    const mode = (readOnly ? sqlite3.OPEN_READONLY : sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE) | sqlite3.OPEN_FULLMUTEX;
    const database = new sqlite3.Database(path, mode, (error) => {
      if (error) return reject(error);
      database.configure("busyTimeout", busyTimeoutMs);
      resolve(database);
    });
  });
}

function prepared(database: sqlite3.Database, sql: string): Promise<sqlite3.Statement> {
  return new Promise((resolve, reject) => {
    // A statement that failed to prepare never answers later calls, so nothing is queued on it before it is ready.
    const statement = database.prepare(sql, (error: Error | null) => (error ? reject(error) : resolve(statement)));
  });
}

const answer = (resolve: (rows: unknown[]) => void, reject: (error: Error) => void) => (error: Error | null, rows: unknown[]) =>
  error ? reject(error) : resolve(rows);

export class SqliteAdapter extends EventEmitter implements KeyvStoreAdapter {
  readonly opts: { readonly dialect: "sqlite"; readonly table: string };
  namespace?: string;
  private readonly connected: Promise<sqlite3.Database>;
  private readonly statements = new Map<string, Promise<sqlite3.Statement>>();
  private closing: Promise<void> | undefined;

  /** `table` is our own constant, never outside input. `readOnly` opens the file for reading only and creates nothing. */
  constructor(path: string, table: string, busyTimeoutMs: number, readOnly = false) {
    super();
    this.opts = { dialect: "sqlite", table };
    this.connected = opened(path, busyTimeoutMs, readOnly).then(async (database) => {
      if (readOnly) return database;
      await new Promise((resolve, reject) =>
        database.all(`CREATE TABLE IF NOT EXISTS ${table}(key VARCHAR(255) PRIMARY KEY, value TEXT )`, answer(resolve, reject)),
      );
      return database;
    });
    // The first query reports a failure to open; this only keeps it from being unhandled meanwhile.
    this.connected.catch(() => undefined);
  }

  private statementFor(database: sqlite3.Database, sql: string): Promise<sqlite3.Statement> | undefined {
    let statement = this.statements.get(sql);
    if (!statement && this.statements.size < MAX_PREPARED) {
      statement = prepared(database, sql);
      // A statement that failed (a broken file) is prepared again next time.
      statement.catch(() => this.statements.delete(sql));
      this.statements.set(sql, statement);
    }
    return statement;
  }

  async query(sql: string, ...parameters: unknown[]): Promise<unknown[]> {
    const database = await this.connected;
    const statement = this.statementFor(database, sql);
    if (!statement) return new Promise((resolve, reject) => database.all(sql, parameters, answer(resolve, reject)));
    const ready = await statement;
    return new Promise((resolve, reject) => ready.all(parameters, answer(resolve, reject)));
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    const rows = (await this.query(`SELECT value FROM ${this.opts.table} WHERE key = ?`, key)) as Array<{ value: StoredData<Value> }>;
    return rows[0]?.value;
  }

  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    const rows = (await this.query(
      `SELECT key, value FROM ${this.opts.table} WHERE key IN (SELECT value FROM json_each(?))`,
      JSON.stringify(keys),
    )) as Array<{ key: string; value: StoredData<Value> }>;
    const byKey = new Map(rows.map((row) => [row.key, row.value]));
    return keys.map((key) => byKey.get(key));
  }

  async set(key: string, value: unknown): Promise<void> {
    await this.query(
      `INSERT INTO ${this.opts.table} (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
      key,
      value,
    );
  }

  /** One statement (@keyv/sqlite reads the row first, then deletes it). */
  async delete(key: string): Promise<boolean> {
    return (await this.query(`DELETE FROM ${this.opts.table} WHERE key = ? RETURNING key`, key)).length > 0;
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    return (
      (await this.query(`DELETE FROM ${this.opts.table} WHERE key IN (SELECT value FROM json_each(?)) RETURNING key`, JSON.stringify(keys)))
        .length > 0
    );
  }

  async has(key: string): Promise<boolean> {
    return (await this.query(`SELECT 1 FROM ${this.opts.table} WHERE key = ?`, key)).length > 0;
  }

  async clear(): Promise<void> {
    await this.query(`DELETE FROM ${this.opts.table}`);
  }

  /** Closing twice is closing once. */
  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    const database = await this.connected.catch(() => undefined);
    if (!database) return;
    // The connection refuses to close while a statement is not finalized.
    const statements = await Promise.allSettled(this.statements.values());
    this.statements.clear();
    await Promise.all(
      statements.map((entry) =>
        entry.status === "fulfilled" ? new Promise<void>((resolve) => entry.value.finalize(() => resolve())) : undefined,
      ),
    );
    await new Promise<void>((resolve, reject) => database.close((error) => (error ? reject(error) : resolve())));
  }

  disconnect(): Promise<void> {
    return this.close();
  }
}
